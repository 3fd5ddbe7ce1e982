using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using Freight.Downloads;
using Freight.Lab.Payload;
using Microsoft.AspNetCore.Connections;

namespace Freight.Tests.Downloads;

/// <summary>
/// <see cref="SendFileConnection"/> on a real loopback socket pair: TCP_NOTSENT_LOWAT is set for file sends and
/// cleared before a large body from memory, which then sends under the kernel's default (what it cost such bodies:
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
    public async Task SendFile_ThenSmallThenLargeWrite_LowWatermarkSetForTheFileKeptForSmallWritesClearedForALargeOne()
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

        // A memory response before any file: the kernel's default, no low watermark.
        var head = "HEAD"u8.ToArray();
        await connection.Output.WriteAsync(head);
        Assert.Equal(head, await ReceiveAsync(client, head.Length));
        Assert.Equal(0, LowWatermark(server));

        using var file = File.OpenHandle(_path, FileMode.Open, FileAccess.Read, FileShare.Read);
        var send = connection.SendFileAsync(connection.Output, file, 0, FileLength, minRate: null, CancellationToken.None);

        // The file's first bytes have arrived, so its first sendfile has run: the watermark is set. The client has
        // read nothing else, so the file cannot all be in the socket yet.
        var first = await ReceiveAsync(client, 1);
        Assert.False(send.IsCompleted);
        Assert.Equal(1024 * 1024, LowWatermark(server));

        var rest = await ReceiveAsync(client, FileLength - 1);
        await send;
        var expected = DeterministicPayload.Create(FileLength);
        Assert.Equal(expected[0], first[0]);
        Assert.True(expected.AsSpan(1).SequenceEqual(rest));

        // A small write after the file (a response head, a small body) leaves the watermark as it is.
        var tail = "TAIL"u8.ToArray();
        await connection.Output.WriteAsync(tail);
        Assert.Equal(tail, await ReceiveAsync(client, tail.Length));
        Assert.Equal(1024 * 1024, LowWatermark(server));

        // A large body from memory clears it before it is sent, and arrives whole on the same socket.
        var body = DeterministicPayload.Create(256 * 1024);
        await connection.Output.WriteAsync(body);
        Assert.Equal(body, await ReceiveAsync(client, body.Length));
        Assert.Equal(0, LowWatermark(server));

        connection.CompleteOutput();
        await loop;
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
