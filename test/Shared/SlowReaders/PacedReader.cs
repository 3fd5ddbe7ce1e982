using System.Diagnostics;
using System.Net.Sockets;

namespace Freight.Testing.SlowReaders;

/// <summary>
/// Reads a response body from a raw socket as a slow client does: never ahead of a rate since it began (0: nothing at
/// all) for a first phase, then as fast as the bytes come. A server that closes or resets the connection first has cut it.
/// </summary>
internal static class PacedReader
{
    /// <summary>
    /// Reads until <paramref name="received"/> reaches <paramref name="length"/>, handing each read's bytes to
    /// <paramref name="onBytes"/>; returns the body bytes received and whether the server cut the connection first.
    /// </summary>
    public static async Task<(long Received, bool Cut)> ReadAsync(
        Socket socket, byte[] buffer, long received, long length, int bytesPerSecond, TimeSpan pacedPhase, Action<byte[], int, long> onBytes)
    {
        var clock = Stopwatch.StartNew();
        while (received < length)
        {
            var want = (int)Math.Min(buffer.Length, length - received);
            if (clock.Elapsed < pacedPhase)
            {
                var allowed = (long)(clock.Elapsed.TotalSeconds * bytesPerSecond) - received;
                if (allowed <= 0)
                {
                    await Task.Delay(20);
                    continue;
                }

                want = (int)Math.Min(want, allowed);
            }

            var read = await ReceiveOrZeroAsync(socket, buffer.AsMemory(0, want));
            if (read == 0)
            {
                return (received, true);
            }

            onBytes(buffer, read, received);
            received += read;
        }

        return (received, false);
    }

    /// <summary>A receive; 0 when the server ended or reset the connection (both are a cut to these tests).</summary>
    public static async Task<int> ReceiveOrZeroAsync(Socket socket, Memory<byte> into)
    {
        try
        {
            return await socket.ReceiveAsync(into, SocketFlags.None);
        }
        catch (SocketException)
        {
            return 0;
        }
    }
}
