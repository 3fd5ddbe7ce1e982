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
/// </remarks>
internal sealed class UploadBodyReader(PipeReader body, UploadStop stop) : PipeReader
{
    // Set by CancelPendingRead on this reader until a read returns canceled for it.
    private int _canceled;

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default) => ReadOnAsync(0, cancellationToken);

    protected override ValueTask<ReadResult> ReadAtLeastAsyncCore(int minimumSize, CancellationToken cancellationToken) => ReadOnAsync(minimumSize, cancellationToken);

    public override bool TryRead(out ReadResult result)
    {
        if (!body.TryRead(out result))
        {
            return false;
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

    public override void AdvanceTo(SequencePosition consumed) => body.AdvanceTo(consumed);

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined) => body.AdvanceTo(consumed, examined);

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
        minimumSize == 0 ? body.ReadAsync(cancellationToken) : body.ReadAtLeastAsync(minimumSize, cancellationToken);

    private bool IsOwnCancel() => stop.Requested || Interlocked.Exchange(ref _canceled, 0) == 1;

    /// <summary>
    /// Gives a canceled read back examined to its end, as the readers that see one left it (the bytes they had not
    /// examined yet came with it, and come again with the next read), and the next read waits for more.
    /// </summary>
    private void ReadPast(in ReadResult canceled) => body.AdvanceTo(canceled.Buffer.Start, canceled.Buffer.End);
}
