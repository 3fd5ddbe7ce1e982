using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using Freight.Downloads;
using Freight.Lab.Payload;
using Microsoft.AspNetCore.Connections;

namespace Freight.Tests.Downloads;

/// <summary>
/// <see cref="SendFileConnection"/> on a real loopback socket pair: TCP_NOTSENT_LOWAT is set only while a file is
/// sent, so the connection's other responses send under the kernel's default (its cost on them:
/// docs/results/2026-11-27-sendfile-layer.md).
/// </summary>
public sealed class SendFileConnectionTests : IDisposable
{
    // Larger than loopback's send and receive buffers together, so the send is still under way while the client waits.
    private const int FileLength = 32 * 1024 * 1024 + 7;

    private const int IpProtoTcp = 6;
    private const int TcpNotSentLowat = 25;

    private readonly TempDirectory _dir = new();
    private readonly string _path;

    public SendFileConnectionTests()
    {
        _path = _dir.Combine("file.bin");
        DeterministicPayload.WriteFile(_path, FileLength);
    }

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task SendFile_WhileSendingAndAfter_LowWatermarkOnlyWhileTheFileIsSentAndEveryByteArrives()
    {
        if (!LinuxSendFile.IsSupported)
        {
            return;
        }

        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        client.ReceiveBufferSize = 32 * 1024;
        await client.ConnectAsync(listener.LocalEndPoint!);
        using var server = await listener.AcceptAsync();

        var input = new Pipe();
        var context = new DefaultConnectionContext("test") { Transport = new Duplex(input.Reader, new Pipe().Writer) };
        var connection = new SendFileConnection(context, server, pool: null);
        var loop = connection.RunAsync();

        Assert.Equal(0, LowWatermark(server));

        using var file = File.OpenHandle(_path, FileMode.Open, FileAccess.Read, FileShare.Read);
        var head = "HEAD"u8.ToArray();
        await connection.Output.WriteAsync(head);
        var send = connection.SendFileAsync(connection.Output, file, 0, FileLength, CancellationToken.None);

        // The client has read nothing yet, so the file cannot all be in the socket: the send is under way.
        Assert.False(send.IsCompleted);
        Assert.Equal(128 * 1024, LowWatermark(server));

        var received = await ReceiveAsync(client, head.Length + FileLength);
        await send;
        Assert.Equal(0, LowWatermark(server));

        // A response after the file's leaves on the same socket, whole.
        var tail = "TAIL"u8.ToArray();
        await connection.Output.WriteAsync(tail);
        var after = await ReceiveAsync(client, tail.Length);
        connection.CompleteOutput();
        await loop;

        Assert.Equal(head, received[..head.Length]);
        Assert.True(DeterministicPayload.Create(FileLength).AsSpan().SequenceEqual(received.AsSpan(head.Length)));
        Assert.Equal(tail, after);
        Assert.Equal(0, LowWatermark(server));
    }

    private static int LowWatermark(Socket socket)
    {
        var value = new byte[sizeof(int)];
        socket.GetRawSocketOption(IpProtoTcp, TcpNotSentLowat, value);
        return BitConverter.ToInt32(value);
    }

    private static async Task<byte[]> ReceiveAsync(Socket socket, int count)
    {
        var bytes = new byte[count];
        var received = 0;
        while (received < count)
        {
            var read = await socket.ReceiveAsync(bytes.AsMemory(received), SocketFlags.None);
            Assert.NotEqual(0, read);
            received += read;
        }

        return bytes;
    }

    private sealed class Duplex(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
