using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using Freight.Downloads;
using Freight.Lab.Payload;
using Microsoft.AspNetCore.Connections;

namespace Freight.Tests.Downloads;

/// <summary>
/// <see cref="SendFileConnection"/> on a real loopback socket pair: bytes from memory, a file larger than the socket's
/// buffers sent with sendfile, then small and large writes from memory, all arrive in order on one socket.
/// </summary>
public sealed class SendFileConnectionTests : IDisposable
{
    // Larger than loopback's send and receive buffers together, so the send is still under way while the client waits.
    private const int FileLength = 32 * 1024 * 1024 + 7;

    private readonly TempDirectory _dir = new();
    private readonly string _path;

    public SendFileConnectionTests()
    {
        _path = _dir.Combine("file.bin");
        DeterministicPayload.WriteFile(_path, FileLength);
    }

    public void Dispose() => _dir.Dispose();

    [Fact]
    public async Task SendFile_BetweenWritesFromMemory_EveryByteInOrder()
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

        var head = "HEAD"u8.ToArray();
        await connection.Output.WriteAsync(head);
        Assert.Equal(head, await ReceiveAsync(client, head.Length));

        using var file = File.OpenHandle(_path, FileMode.Open, FileAccess.Read, FileShare.Read);
        var send = connection.SendFileAsync(connection.Output, file, 0, FileLength, response: null, CancellationToken.None);

        // The file's first bytes have arrived; the client has read nothing else, so the file cannot all be in the socket.
        var first = await ReceiveAsync(client, 1);
        Assert.False(send.IsCompleted);

        var rest = await ReceiveAsync(client, FileLength - 1);
        await send;
        var expected = DeterministicPayload.Create(FileLength);
        Assert.Equal(expected[0], first[0]);
        Assert.True(expected.AsSpan(1).SequenceEqual(rest));

        // A small write after the file (a response head, a small body), then a large body from memory.
        var tail = "TAIL"u8.ToArray();
        await connection.Output.WriteAsync(tail);
        Assert.Equal(tail, await ReceiveAsync(client, tail.Length));

        var body = DeterministicPayload.Create(256 * 1024);
        await connection.Output.WriteAsync(body);
        Assert.Equal(body, await ReceiveAsync(client, body.Length));

        connection.CompleteOutput();
        await loop;
    }

    [Fact]
    public async Task SendFile_RequestAbortedAsItsLastFlushComesBack_EndsComplete()
    {
        if (!LinuxSendFile.IsSupported)
        {
            return;
        }

        // One chunk of one piece: the response's second flush (after its head's) is its last.
        const int length = 48 * 1024;
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await client.ConnectAsync(listener.LocalEndPoint!);
        using var server = await listener.AcceptAsync();
        var context = new DefaultConnectionContext("test") { Transport = new Duplex(new Pipe().Reader, new Pipe().Writer) };
        var connection = new SendFileConnection(context, server, pool: null);
        var loop = connection.RunAsync();

        using var aborted = new CancellationTokenSource();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var writer = new KestrelLikeResponseWriter(connection.Output, holdFrom: 2, release.Task);
        using var file = File.OpenHandle(_path, FileMode.Open, FileAccess.Read, FileShare.Read);
        var send = connection.SendFileAsync(writer, file, 0, length, response: null, aborted.Token);

        // The client has the whole body and closes; Kestrel aborts the request while the last flush is on its way back.
        var body = await ReceiveAsync(client, length);
        Assert.Equal(DeterministicPayload.Create(length), body);
        await writer.Held.WaitAsync(TimeSpan.FromSeconds(10));
        aborted.Cancel();
        release.SetResult();

        // Every byte had left: the send ends as a complete one, not in the abort's cancellation.
        await send.WaitAsync(TimeSpan.FromSeconds(10));

        connection.CompleteOutput();
        await loop;
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

    /// <summary>
    /// A response writer that checks the request's token once each flush is back, as Kestrel's does
    /// (TimingPipeFlusher), and holds flushes from the <paramref name="holdFrom"/>th on until <paramref name="release"/>,
    /// so that a test can abort the request in between.
    /// </summary>
    private sealed class KestrelLikeResponseWriter(PipeWriter inner, int holdFrom, Task release) : PipeWriter
    {
        private readonly TaskCompletionSource _held = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _flushes;

        public Task Held => _held.Task;

        public override async ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
        {
            var result = await inner.FlushAsync(cancellationToken);
            if (++_flushes >= holdFrom)
            {
                _held.TrySetResult();
                await release;
            }

            cancellationToken.ThrowIfCancellationRequested();
            return result;
        }

        public override void Advance(int bytes) => inner.Advance(bytes);

        public override Memory<byte> GetMemory(int sizeHint = 0) => inner.GetMemory(sizeHint);

        public override Span<byte> GetSpan(int sizeHint = 0) => inner.GetSpan(sizeHint);

        public override void CancelPendingFlush() => inner.CancelPendingFlush();

        public override void Complete(Exception? exception = null) => inner.Complete(exception);
    }

    private sealed class Duplex(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
