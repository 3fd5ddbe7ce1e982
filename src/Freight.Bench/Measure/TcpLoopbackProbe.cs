using System.Buffers.Binary;
using System.Diagnostics;
using System.IO.Hashing;
using System.Net;
using System.Net.Sockets;
using Freight.Bench.Load;

namespace Freight.Bench.Measure;

/// <summary>
/// The ceiling every row is compared with: the same payload sent over a plain loopback TCP connection to
/// a <see cref="TcpSink"/> in another process, which hashes it on arrival exactly as the HTTP transfers
/// are verified. Two processes, one connection, no HTTP.
/// </summary>
public sealed class TcpLoopbackProbe : IAsyncDisposable
{
    private readonly Socket _socket;
    private readonly ClientPayload _payload;
    private readonly int _bufferBytes;
    private readonly byte[] _header = new byte[16];
    private readonly UInt128 _expected;

    private TcpLoopbackProbe(Socket socket, ClientPayload payload, int bufferBytes)
    {
        _socket = socket;
        _payload = payload;
        _bufferBytes = bufferBytes;
        _expected = XxHash128.HashToUInt128(payload.Bytes);
    }

    public static async Task<TcpLoopbackProbe> ConnectAsync(IPEndPoint sink, ClientPayload payload, int bufferBytes, CancellationToken cancellationToken)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(sink, cancellationToken);
        return new TcpLoopbackProbe(socket, payload, bufferBytes);
    }

    /// <summary>Moves the payload once and verifies it.</summary>
    public async Task<TransferOutcome> TransferAsync(CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        BinaryPrimitives.WriteInt64LittleEndian(_header, _payload.Length);
        await _socket.SendAsync(_header.AsMemory(0, 8), SocketFlags.None, cancellationToken);
        var bytes = _payload.Bytes.AsMemory();
        for (var offset = 0; offset < bytes.Length;)
        {
            offset += await _socket.SendAsync(bytes.Slice(offset, Math.Min(_bufferBytes, bytes.Length - offset)), SocketFlags.None, cancellationToken);
        }

        if (!await TcpSink.ReceiveExactlyAsync(_socket, _header.AsMemory(0, 16), cancellationToken)
            || BinaryPrimitives.ReadUInt128LittleEndian(_header) != _expected)
        {
            throw new VerificationException("tcp/loopback: the sink received other bytes than were sent.");
        }

        return new TransferOutcome(_payload.Length, clock.Elapsed.TotalSeconds, null);
    }

    public ValueTask DisposeAsync()
    {
        _socket.Dispose();
        return ValueTask.CompletedTask;
    }
}
