using System.Buffers;
using System.Net.Sockets;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// A response the server sent while the request's body was still being sent, before it closed the connection: Kestrel
/// answers 413 to a body over its MaxRequestBodySize and closes without reading the rest, so the next write fails
/// (EPIPE, or a reset). The answer is in the socket's receive queue by then; it is read, as curl reads it, and the
/// request counts as answered with that status (<see cref="EarlyResponseException"/>). Only a failed send comes here:
/// a run whose bodies go through costs nothing.
/// </summary>
internal static class EarlyResponse
{
    /// <summary>A status line and more: "HTTP/1.1 413 Payload Too Large" is 31 bytes.</summary>
    private const int ReadBytes = 1024;

    /// <summary>
    /// An answer sent before the close has arrived when the send fails, so reads end at once (its bytes, then the end or
    /// the reset); this bounds only a server that failed the send without closing.
    /// </summary>
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(1);

    /// <summary>
    /// <paramref name="sendFailed"/>, or the <see cref="EarlyResponseException"/> it becomes when the server answered on
    /// <paramref name="socket"/> before it closed.
    /// </summary>
    public static async ValueTask<Exception> ExplainAsync(Socket socket, Exception sendFailed)
    {
        var status = await ReadStatusAsync(socket);
        return status is { } code ? new EarlyResponseException(code, sendFailed) : sendFailed;
    }

    /// <summary>The final status of the response head at the start of <paramref name="received"/> (RFC 9112 §4); null when it is none.</summary>
    internal static int? StatusOf(ReadOnlySpan<byte> received)
    {
        // "HTTP/1.x 413 ": HTTP-version SP 3DIGIT SP
        if (received.Length < 13 || !received.StartsWith("HTTP/1."u8) || received[8] != ' ' || received[12] != ' ')
        {
            return null;
        }

        var status = 0;
        foreach (var digit in received.Slice(9, 3))
        {
            if (!char.IsAsciiDigit((char)digit))
            {
                return null;
            }

            status = (status * 10) + (digit - '0');
        }

        return status is >= 200 and <= 599 ? status : null;
    }

    private static async ValueTask<int?> ReadStatusAsync(Socket socket)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(ReadBytes);
        try
        {
            using var patience = new CancellationTokenSource(Patience);
            var filled = 0;
            while (filled < ReadBytes && buffer.AsSpan(0, filled).IndexOf("\r\n"u8) < 0)
            {
                var read = await socket.ReceiveAsync(buffer.AsMemory(filled, ReadBytes - filled), SocketFlags.None, patience.Token);
                if (read == 0)
                {
                    break;
                }

                filled += read;
            }

            return StatusOf(buffer.AsSpan(0, filled));
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // Reset before an answer, or none came: the send's own failure stands.
            return null;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}

/// <summary>The server answered <see cref="StatusCode"/> while the request was sent, then closed: a response, not a failure to connect.</summary>
internal sealed class EarlyResponseException(int statusCode, Exception sendFailed)
    : IOException($"The server answered {statusCode} while the request was sent, then closed the connection.", sendFailed)
{
    public int StatusCode { get; } = statusCode;

    /// <summary>The early answer in <paramref name="exception"/>'s chain (HttpClient wraps what its stream threw); null when there is none.</summary>
    public static EarlyResponseException? Find(Exception exception)
    {
        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            if (inner is EarlyResponseException early)
            {
                return early;
            }
        }

        return null;
    }
}

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
