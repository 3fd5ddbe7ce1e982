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
    /// The client reads with blocking calls on a thread of its own: on the thread pool it shared the server's, and under
    /// the whole suite's load a client meant to read at three times a rate could fall behind it, and be cut for that.
    /// </summary>
    public static Task<(long Received, bool Cut)> ReadAsync(
        Socket socket, byte[] buffer, long received, long length, int bytesPerSecond, TimeSpan pacedPhase, Action<byte[], int, long> onBytes) =>
        Task.Factory.StartNew(
            () => Read(socket, buffer, received, length, bytesPerSecond, pacedPhase, onBytes),
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

    private static (long Received, bool Cut) Read(
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
                    Thread.Sleep(20);
                    continue;
                }

                want = (int)Math.Min(want, allowed);
            }

            var read = ReceiveOrZero(socket, buffer.AsSpan(0, want));
            if (read == 0)
            {
                return (received, true);
            }

            onBytes(buffer, read, received);
            received += read;
        }

        return (received, false);
    }

    private static int ReceiveOrZero(Socket socket, Span<byte> into)
    {
        try
        {
            return socket.Receive(into, SocketFlags.None);
        }
        catch (SocketException)
        {
            return 0;
        }
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
