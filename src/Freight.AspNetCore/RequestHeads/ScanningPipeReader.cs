using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace Freight.AspNetCore.RequestHeads;

/// <summary>
/// A connection's input as Kestrel reads it, showing each consumed range to a <see cref="ContentLengthScanner"/> while
/// it is scanning (request heads); bodies the application reads pass through untouched.
/// </summary>
internal sealed class ScanningPipeReader(PipeReader inner, ContentLengthScanner scanner) : PipeReader
{
    private ContentLengthScanner? _scanner = scanner;
    private ReadOnlySequence<byte> _buffer;

    /// <summary>
    /// Passes every byte through unscanned from now on: the connection turned out to be TLS, whose decrypted bytes
    /// another reader scans (<see cref="ScanningConnection"/>).
    /// </summary>
    public void StopScanning() => _scanner = null;

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
    {
        var read = inner.ReadAsync(cancellationToken);
        if (read.IsCompletedSuccessfully)
        {
            // Read once (a pipe's ValueTask may be backed by a reusable source) and handed on as a plain result.
            var result = read.Result;
            _buffer = result.Buffer;
            return new ValueTask<ReadResult>(result);
        }

        return Remember(read);
    }

    public override bool TryRead(out ReadResult result)
    {
        if (!inner.TryRead(out result))
        {
            return false;
        }

        _buffer = result.Buffer;
        return true;
    }

    public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        if (_scanner is { Scanning: true } active)
        {
            active.Scan(_buffer.Slice(0, consumed));
        }

        _buffer = default;
        inner.AdvanceTo(consumed, examined);
    }

    public override void CancelPendingRead() => inner.CancelPendingRead();

    public override void Complete(Exception? exception = null) => inner.Complete(exception);

    public override ValueTask CompleteAsync(Exception? exception = null) => inner.CompleteAsync(exception);

    // Pooled: a keep-alive connection's read for its next request almost always completes later, and each such read
    // would otherwise allocate this method's state machine.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<ReadResult> Remember(ValueTask<ReadResult> pending)
    {
        var result = await pending;
        _buffer = result.Buffer;
        return result;
    }
}
