using System.Buffers.Binary;
using System.IO.Hashing;
using System.Net;
using System.Net.Sockets;

namespace Freight.Bench.Measure;

/// <summary>
/// The far end of the TCP ceiling probe, run as its own process (<c>freight tcp-sink</c>) so the probe
/// has the same shape as an HTTP upload: one process sends, another receives and hashes. Protocol per
/// transfer: 8-byte little-endian length, that many bytes; the sink answers the 16-byte XXH3-128.
/// </summary>
public static class TcpSink
{
    /// <summary>Receive buffer: the best of 16 KiB–4 MiB on this machine (1 MiB and 4 MiB tied).</summary>
    public const int ReceiveBufferBytes = 1024 * 1024;

    /// <summary>Listens on 127.0.0.1:0, prints <c>listening: tcp://127.0.0.1:PORT</c>, serves until stdin closes.</summary>
    public static async Task<int> RunAsync(TextWriter output, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(output);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(4);
        await output.WriteLineAsync($"listening: tcp://{listener.LocalEndPoint}");
        await output.FlushAsync(cancellationToken);
        _ = StopWhenInputClosesAsync(stop);
        try
        {
            while (true)
            {
                var connection = await listener.AcceptAsync(stop.Token);
                _ = ServeAsync(connection, stop.Token);
            }
        }
        catch (OperationCanceledException)
        {
            return 0;
        }
    }

    private static async Task ServeAsync(Socket connection, CancellationToken cancellationToken)
    {
        using (connection)
        {
            var buffer = GC.AllocateUninitializedArray<byte>(ReceiveBufferBytes);
            var hasher = new XxHash128();
            try
            {
                while (await ReceiveExactlyAsync(connection, buffer.AsMemory(0, 8), cancellationToken))
                {
                    var remaining = BinaryPrimitives.ReadInt64LittleEndian(buffer);
                    hasher.Reset();
                    while (remaining > 0)
                    {
                        var read = await connection.ReceiveAsync(buffer.AsMemory(0, (int)Math.Min(buffer.Length, remaining)), SocketFlags.None, cancellationToken);
                        if (read == 0)
                        {
                            return;
                        }

                        hasher.Append(buffer.AsSpan(0, read));
                        remaining -= read;
                    }

                    BinaryPrimitives.WriteUInt128LittleEndian(buffer, hasher.GetCurrentHashAsUInt128());
                    await connection.SendAsync(buffer.AsMemory(0, 16), SocketFlags.None, cancellationToken);
                }
            }
            catch (Exception failure) when (failure is SocketException or OperationCanceledException)
            {
                // The bench went away: nothing to report to anyone.
            }
        }
    }

    /// <summary>Fills <paramref name="buffer"/>; false if the peer closed before the first byte.</summary>
    internal static async Task<bool> ReceiveExactlyAsync(Socket socket, Memory<byte> buffer, CancellationToken cancellationToken)
    {
        for (var filled = 0; filled < buffer.Length;)
        {
            var read = await socket.ReceiveAsync(buffer[filled..], SocketFlags.None, cancellationToken);
            if (read == 0)
            {
                return filled == 0 ? false : throw new SocketException((int)SocketError.ConnectionReset);
            }

            filled += read;
        }

        return true;
    }

    private static async Task StopWhenInputClosesAsync(CancellationTokenSource stop)
    {
        await using var input = Console.OpenStandardInput();
        var buffer = new byte[256];
        while (await input.ReadAsync(buffer) > 0)
        {
        }

        await stop.CancelAsync();
    }
}
