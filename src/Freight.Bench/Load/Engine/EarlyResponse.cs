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
