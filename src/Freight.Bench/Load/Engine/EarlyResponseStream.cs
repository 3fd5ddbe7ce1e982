using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// HttpClient's connection stream for cleartext HTTP/1.1 runs with a body (<see cref="SocketsHttpHandler.ConnectCallback"/>):
/// a <see cref="NetworkStream"/> whose failed write reads the server's early answer (<see cref="EarlyResponse"/>).
/// A write that completes at once goes straight through.
/// </summary>
internal sealed class EarlyResponseStream(Socket socket) : NetworkStream(socket, ownsSocket: true)
{
    /// <summary>The handler's connect, as SocketsHttpHandler's own (Nagle off), returning this stream.</summary>
    public static async ValueTask<Stream> ConnectAsync(SocketsHttpConnectionContext context, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(context.DnsEndPoint, cancellationToken);
            return new EarlyResponseStream(socket);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        ValueTask write;
        try
        {
            write = base.WriteAsync(buffer, cancellationToken);
        }
        catch (IOException failed) when (failed.InnerException is SocketException)
        {
            return FailedAsync(failed);
        }

        return write.IsCompletedSuccessfully ? write : WrittenAsync(write);
    }

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    // Pooled: on an upload the socket's buffer fills and most writes complete later, so a state machine box would be
    // allocated per body chunk, in the client whose CPU and allocations the run reports.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask WrittenAsync(ValueTask write)
    {
        try
        {
            await write;
        }
        catch (IOException failed) when (failed.InnerException is SocketException)
        {
            throw await EarlyResponse.ExplainAsync(Socket, failed);
        }
    }

    private async ValueTask FailedAsync(IOException failed) => throw await EarlyResponse.ExplainAsync(Socket, failed);
}
