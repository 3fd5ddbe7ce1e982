using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace Freight.Uploads;

/// <summary>
/// An upload's request body, read on through the host's graceful stop: a read comes back canceled only for the stop
/// (<see cref="UploadStop"/>, its cut) or for this reader's own <see cref="CancelPendingRead"/>, and a read canceled
/// by anyone else is read past. Every upload reads its body through one (the upload pipeline's
/// <see cref="PipeBodySource"/>, the multipart parser, the lab's loops), so all of them drain and are cut alike.
/// </summary>
/// <remarks>
/// Kestrel's HTTP/1.1 connection cancels its input's pending read for its own ends: to stop gracefully (the host's
/// stop, while requests drain) and to check its rate timeouts. It hides that from a body reader whose last
/// <c>AdvanceTo</c> examined no further than it consumed, but not from one that examined more
/// (dotnet/aspnetcore#19476): <c>ReadAtLeastAsync</c> gathering a batch, the multipart parser holding back what may
/// begin a delimiter or waiting for a section's headers. Those uploads failed the moment the stop began.
/// With an <see cref="UploadRate"/> (HTTP/2, where Kestrel's own rate would abort the whole connection) the reader
/// also times its reads and counts the bytes as they arrive, and a read the rate cut throws its 408.
/// </remarks>
internal sealed class UploadBodyReader(PipeReader body, UploadStop stop, UploadRate? rate = null) : PipeReader
{
    // Set by CancelPendingRead on this reader until a read returns canceled for it.
    private int _canceled;

    // With a rate: the last buffer read, and how many of its bytes the rate has counted (those not consumed since).
    private ReadOnlySequence<byte> _read;
    private long _counted;

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default) => ReadOnAsync(0, cancellationToken);

    protected override ValueTask<ReadResult> ReadAtLeastAsyncCore(int minimumSize, CancellationToken cancellationToken) => ReadOnAsync(minimumSize, cancellationToken);

    public override bool TryRead(out ReadResult result)
    {
        if (!body.TryRead(out result))
        {
            return false;
        }

        Count(result);
        if (result.IsCanceled && rate is { Cut: true })
        {
            body.AdvanceTo(result.Buffer.Start, result.Buffer.End);
            throw UploadRate.TooSlow();
        }

        if (result.IsCanceled && !IsOwnCancel())
        {
            if (!result.IsCompleted)
            {
                ReadPast(result);
                result = default;
                return false;
            }

            result = new ReadResult(result.Buffer, isCanceled: false, isCompleted: true);
        }

        return true;
    }

    public override void AdvanceTo(SequencePosition consumed)
    {
        Uncount(consumed);
        body.AdvanceTo(consumed);
    }

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        Uncount(consumed);
        body.AdvanceTo(consumed, examined);
    }

    public override void CancelPendingRead()
    {
        Volatile.Write(ref _canceled, 1);
        body.CancelPendingRead();
    }

    public override void Complete(Exception? exception = null) => body.Complete(exception);

    public override ValueTask CompleteAsync(Exception? exception = null) => body.CompleteAsync(exception);

    // Pooled: the read completes asynchronously whenever the client is slower than the server, and an async
    // method's state machine box would otherwise be allocated per read.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<ReadResult> ReadOnAsync(int minimumSize, CancellationToken cancellationToken)
    {
        var result = await ReadOnceAsync(minimumSize, cancellationToken);
        while (result.IsCanceled && !IsOwnCancel())
        {
            if (result.IsCompleted)
            {
                // Kestrel's, with the body's last bytes: the body ends complete.
                return new ReadResult(result.Buffer, isCanceled: false, isCompleted: true);
            }

            ReadPast(result);
            result = await ReadOnceAsync(minimumSize, cancellationToken);
        }

        return result;
    }

    private ValueTask<ReadResult> ReadOnceAsync(int minimumSize, CancellationToken cancellationToken) =>
        rate is not null ? ReadTimedAsync(rate, minimumSize, cancellationToken)
        : minimumSize == 0 ? body.ReadAsync(cancellationToken)
        : body.ReadAtLeastAsync(minimumSize, cancellationToken);

    /// <summary>
    /// A read for <paramref name="rate"/>: each wait timed, and a batch gathered one read at a time (as PipeReader's own
    /// <c>ReadAtLeastAsync</c> does), so that the bytes count as they arrive, not once a batch is whole.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<ReadResult> ReadTimedAsync(UploadRate rate, int minimumSize, CancellationToken cancellationToken)
    {
        while (true)
        {
            if (rate.Cut)
            {
                throw UploadRate.TooSlow();
            }

            var pending = body.ReadAsync(cancellationToken);
            if (!pending.IsCompleted)
            {
                rate.Waiting();
            }

            ReadResult result;
            try
            {
                result = await pending;
            }
            catch
            {
                // The body failed (the client went away): there is nothing left to time.
                rate.Read(0, ended: true);
                throw;
            }

            Count(result);
            if (result.IsCanceled && rate.Cut)
            {
                // The rate's own cancel: the body read ends as Kestrel's HTTP/1.1 read ends under its rate.
                body.AdvanceTo(result.Buffer.Start, result.Buffer.End);
                throw UploadRate.TooSlow();
            }

            if (result.IsCanceled || result.IsCompleted || result.Buffer.Length >= minimumSize)
            {
                return result;
            }

            body.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        }
    }

    /// <summary>Counts the bytes of <paramref name="result"/> the rate has not seen yet.</summary>
    private void Count(in ReadResult result)
    {
        if (rate is not null)
        {
            rate.Read(result.Buffer.Length - _counted, result.IsCompleted);
            _read = result.Buffer;
            _counted = result.Buffer.Length;
        }
    }

    /// <summary>What stays unconsumed of the last buffer is counted already: it comes again with the next read.</summary>
    private void Uncount(SequencePosition consumed)
    {
        if (rate is not null)
        {
            _counted = _read.Slice(consumed).Length;
        }
    }

    private bool IsOwnCancel() => stop.Requested || Interlocked.Exchange(ref _canceled, 0) == 1;

    /// <summary>
    /// Gives a canceled read back examined to its end, as the readers that see one left it (the bytes they had not
    /// examined yet came with it, and come again with the next read), and the next read waits for more.
    /// </summary>
    private void ReadPast(in ReadResult canceled) => body.AdvanceTo(canceled.Buffer.Start, canceled.Buffer.End);
}
