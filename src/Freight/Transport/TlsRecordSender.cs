using System.Buffers;
using System.Diagnostics.CodeAnalysis;
using System.IO.Pipelines;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Connections;

namespace Freight.Transport;

/// <summary>
/// The output pipe Kestrel's TLS middleware writes its records to (<see cref="TlsSocketOutput"/>): what it writes is
/// sent on the socket from the flushing thread, and a flush returns once the kernel has taken it. Kestrel's SslStream
/// adapter writes one record and flushes it (DuplexPipeStream: Write, then FlushAsync); once the handshake is done,
/// full records (a large body's) are held until about <see cref="CoalesceBytes"/> have gathered and leave in one send,
/// and the rest leave at once: a record shorter than full ends a body, and Kestrel's own flush ends every batch with
/// a flush that adds nothing (StreamPipeWriter: SslStream.FlushAsync, after its writes), which sends what is held. So
/// no byte waits beyond the HTTP layer's flush. A send that fails (the client left, Kestrel aborted the connection)
/// aborts the connection and completes the output, as Kestrel's socket transport does on a reset: the HTTP layer then
/// stops quietly instead of logging the error as unexpected.
/// </summary>
/// <remarks>
/// One writer at a time, as for the pipe it replaces: SslStream serialises its writes.
/// </remarks>
internal sealed class TlsRecordSender(Socket socket, ConnectionContext connection) : PipeWriter
{
    /// <summary>A record that carries a full 16 KiB of data (16,401 bytes on TLS 1.3 AES-GCM, 16,413 on TLS 1.2).</summary>
    private const int FullRecordBytes = 16 * 1024;

    /// <summary>
    /// Full records are held until this many bytes wait, then leave in one send: the ~64 KiB sendmsg Kestrel's transport
    /// makes of them. Per 2 GiB download, 32,771 sends instead of one per record (131,072); the server's CPU per GiB was
    /// the same either way within the noise of a loaded machine (docs/results/2026-11-25-tls-cost.md).
    /// </summary>
    private const int CoalesceBytes = 64 * 1024;

    /// <summary>
    /// Room for what <see cref="CoalesceBytes"/> holds and one more record; a flush that needs more (a handshake
    /// flight with a long certificate chain) grows it. Rented per send, so an idle connection holds none.
    /// </summary>
    private const int BufferBytes = CoalesceBytes + 2 * FullRecordBytes;

    private byte[]? _buffer;
    private int _written;
    private int _held;
    private bool _coalescing;
    private bool _closed;

    /// <summary>From now on full records may wait for the next ones: the handshake is over (nothing waits on a reply).</summary>
    public void HandshakeDone() => _coalescing = true;

    public override Memory<byte> GetMemory(int sizeHint = 0)
    {
        Reserve(sizeHint);
        return _buffer.AsMemory(_written);
    }

    public override Span<byte> GetSpan(int sizeHint = 0)
    {
        Reserve(sizeHint);
        return _buffer.AsSpan(_written);
    }

    public override void Advance(int bytes)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(bytes);
        if (_buffer is null || bytes > _buffer.Length - _written)
        {
            throw new InvalidOperationException("Advanced past the memory the writer gave.");
        }

        _written += bytes;
    }

    public override bool CanGetUnflushedBytes => true;

    public override long UnflushedBytes => _written;

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
    {
        if (_closed)
        {
            // After a failed send the bytes have nowhere to go: dropped, as a completed pipe's reader drops them.
            ReleaseBuffer();
            return ValueTask.FromResult(new FlushResult(isCanceled: false, isCompleted: true));
        }

        if (_coalescing && _written - _held >= FullRecordBytes && _written < CoalesceBytes)
        {
            // A full record, and more of the body is coming: Kestrel's flush that ends the batch sends it.
            _held = _written;
            return ValueTask.FromResult(new FlushResult(isCanceled: false, isCompleted: false));
        }

        return _written == 0 ? ValueTask.FromResult(new FlushResult(isCanceled: false, isCompleted: false)) : SendAsync();
    }

    /// <summary>Sends whatever is held: the connection's last bytes, should any be left.</summary>
    public ValueTask<FlushResult> SendHeldAsync() =>
        _written == 0 || _closed ? ValueTask.FromResult(new FlushResult(isCanceled: false, isCompleted: _closed)) : SendAsync();

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<FlushResult> SendAsync()
    {
        var bytes = _buffer.AsMemory(0, _written);
        try
        {
            while (!bytes.IsEmpty)
            {
                // Completes at once while the socket's send buffer has room (no thread hop); otherwise waits for room
                // without a thread, which is the connection's backpressure. Not cancellable: half a record would end
                // the TLS stream (a cancelled pipe flush still sent what it had); an abort disposes the socket instead.
                var sent = await socket.SendAsync(bytes, SocketFlags.None);
                bytes = bytes[sent..];
            }
        }
        catch (Exception failed) when (failed is SocketException or ObjectDisposedException)
        {
            _closed = true;
            connection.Abort(new ConnectionAbortedException("The TLS connection's socket failed to send.", failed));
        }
        finally
        {
            ReleaseBuffer();
        }

        return new FlushResult(isCanceled: false, isCompleted: _closed);
    }

    /// <summary>Sends are not cancelled (see <see cref="SendAsync"/>): they end when the socket takes the bytes or fails.</summary>
    public override void CancelPendingFlush()
    {
    }

    public override void Complete(Exception? exception = null)
    {
        _closed = true;
        ReleaseBuffer();
    }

    [MemberNotNull(nameof(_buffer))]
    private void Reserve(int sizeHint)
    {
        var needed = Math.Max(sizeHint, 1);
        if (_buffer is not null && _buffer.Length - _written >= needed)
        {
            return;
        }

        var larger = ArrayPool<byte>.Shared.Rent(Math.Max(BufferBytes, _written + needed));
        if (_buffer is not null)
        {
            _buffer.AsSpan(0, _written).CopyTo(larger);
            ArrayPool<byte>.Shared.Return(_buffer);
        }

        _buffer = larger;
    }

    private void ReleaseBuffer()
    {
        _written = 0;
        _held = 0;
        if (_buffer is not null)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = null;
        }
    }
}
