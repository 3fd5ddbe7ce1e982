using System.IO.Pipelines;

namespace Freight.Downloads;

/// <summary>
/// The output Kestrel's HTTP layer writes to on a <see cref="SendFileConnection"/>: the connection's pipe, with
/// a count of the bytes written (so a file's bytes can be placed after exactly those), and a discard mode in
/// which written bytes go nowhere: they stand for file bytes that sendfile(2) sends, and pass through Kestrel
/// only so that its Content-Length check and keep-alive see a whole body.
/// </summary>
internal sealed class SendFileOutput(PipeWriter pipe, SendFileConnection connection) : PipeWriter
{
    // What Kestrel's writer hands out while discarding: nobody writes into it (the response code only
    // advances), so one array serves every connection. 64 KiB: the transport pool's block, the size a
    // write asks for on the copying path.
    private static readonly byte[] s_standIn = GC.AllocateUninitializedArray<byte>(64 * 1024);

    private long _discard;

    /// <summary>Bytes written to the pipe since the connection began: the position the next byte will have.</summary>
    public long Written { get; private set; }

    /// <summary>True while written bytes still stand for file bytes.</summary>
    public bool Discarding => _discard > 0;

    /// <summary>How many of the next written bytes still stand for file bytes.</summary>
    public long DiscardLeft => _discard;

    /// <summary>The next <paramref name="count"/> bytes written stand for file bytes and are dropped.</summary>
    public void Discard(long count) => _discard = count;

    /// <summary>Leaves discard mode, whatever was left of it (a response that failed half-way).</summary>
    public void StopDiscarding() => _discard = 0;

    public override void Advance(int bytes)
    {
        if (_discard > 0)
        {
            if (bytes > _discard)
            {
                throw new InvalidOperationException($"{bytes} bytes written where {_discard} stood for a file's bytes.");
            }

            _discard -= bytes;
            return;
        }

        pipe.Advance(bytes);
        Written += bytes;
    }

    public override Memory<byte> GetMemory(int sizeHint = 0) =>
        _discard > 0 ? s_standIn.AsMemory(0, (int)Math.Min(s_standIn.Length, _discard)) : pipe.GetMemory(sizeHint);

    public override Span<byte> GetSpan(int sizeHint = 0) =>
        _discard > 0 ? s_standIn.AsSpan(0, (int)Math.Min(s_standIn.Length, _discard)) : pipe.GetSpan(sizeHint);

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default) =>
        connection.FlushAsync(cancellationToken);

    public override void CancelPendingFlush() => pipe.CancelPendingFlush();

    public override void Complete(Exception? exception = null) => pipe.Complete(exception);

    public override ValueTask CompleteAsync(Exception? exception = null) => pipe.CompleteAsync(exception);

    public override bool CanGetUnflushedBytes => pipe.CanGetUnflushedBytes;

    public override long UnflushedBytes => pipe.UnflushedBytes;
}
