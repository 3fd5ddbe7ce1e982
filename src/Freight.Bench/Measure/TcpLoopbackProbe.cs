using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Freight.Bench.Load;
using Freight.Hashing;

namespace Freight.Bench.Measure;

/// <summary>
/// The ceiling every row is compared with: the same payload over a plain loopback socket pair in this
/// process, hashed on arrival exactly as the HTTP transfers are verified, no HTTP at all.
/// </summary>
public sealed class TcpLoopbackProbe : IAsyncDisposable
{
    private readonly Socket _sender;
    private readonly Socket _receiver;
    private readonly byte[] _receiveBuffer;
    private readonly ClientPayload _payload;
    private readonly int _bufferBytes;

    private TcpLoopbackProbe(Socket sender, Socket receiver, ClientPayload payload, int bufferBytes)
    {
        _sender = sender;
        _receiver = receiver;
        _payload = payload;
        _bufferBytes = bufferBytes;
        _receiveBuffer = new byte[bufferBytes];
    }

    public static async Task<TcpLoopbackProbe> ConnectAsync(ClientPayload payload, int bufferBytes, CancellationToken cancellationToken)
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        var sender = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        var accept = listener.AcceptAsync(cancellationToken);
        await sender.ConnectAsync(listener.LocalEndPoint!, cancellationToken);
        var receiver = await accept;
        return new TcpLoopbackProbe(sender, receiver, payload, bufferBytes);
    }

    /// <summary>Moves the payload once and verifies it.</summary>
    public async Task<TransferOutcome> TransferAsync(CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        var send = SendAsync(cancellationToken);
        var hasher = new XxHash128();
        while (hasher.Length < _payload.Length)
        {
            var want = (int)Math.Min(_receiveBuffer.Length, _payload.Length - hasher.Length);
            var read = await _receiver.ReceiveAsync(_receiveBuffer.AsMemory(0, want), SocketFlags.None, cancellationToken);
            if (read == 0)
            {
                throw new VerificationException("tcp/loopback: the connection closed early.");
            }

            hasher.Append(_receiveBuffer.AsSpan(0, read));
        }

        await send;
        var seconds = clock.Elapsed.TotalSeconds;
        if (hasher.GetCurrentHashAsHex() != _payload.Hash)
        {
            throw new VerificationException("tcp/loopback: the received bytes differ from the payload.");
        }

        return new TransferOutcome(_payload.Length, seconds, null);
    }

    private async Task SendAsync(CancellationToken cancellationToken)
    {
        var bytes = _payload.Bytes.AsMemory();
        for (var offset = 0; offset < bytes.Length;)
        {
            offset += await _sender.SendAsync(bytes.Slice(offset, Math.Min(_bufferBytes, bytes.Length - offset)), SocketFlags.None, cancellationToken);
        }
    }

    public ValueTask DisposeAsync()
    {
        _sender.Dispose();
        _receiver.Dispose();
        return ValueTask.CompletedTask;
    }
}
