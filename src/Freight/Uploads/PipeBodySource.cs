using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace Freight.Uploads;

/// <summary>
/// A whole request body (a PUT's, a tus PATCH's, the lab's) read in batches of at least
/// <paramref name="batchBytes"/>: fewer, larger writes, each a gather write of the pipe's own segments. Given a
/// <paramref name="stop"/>, a read comes back canceled only for it (the host stopping) and any other canceled read is
/// read past; without one (the lab's), every canceled read ends the upload.
/// </summary>
internal readonly struct PipeBodySource(PipeReader body, int batchBytes, UploadStop? stop = null) : IUploadSource
{
    // Pooled: the read completes asynchronously whenever the client is slower than the server, and an async
    // method's state machine box would otherwise be allocated per chunk.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<UploadChunk> ReadAsync(CancellationToken cancellationToken)
    {
        var result = await body.ReadAtLeastAsync(batchBytes, cancellationToken);
        while (result.IsCanceled && !result.IsCompleted && stop is { Requested: false })
        {
            // Kestrel's own: its HTTP/1.1 connection cancels its input's pending read to stop gracefully (the host's
            // stop, while requests drain) and to check its rate timeouts. It hides that from a body reader whose last
            // AdvanceTo examined no further than it consumed, but not from one that examined more, which
            // ReadAtLeastAsync does while it gathers (dotnet/aspnetcore#19476): the upload then failed as a 500
            // the moment the stop began. Examined to its end, as ReadAtLeastAsync leaves it, and read again.
            body.AdvanceTo(result.Buffer.Start, result.Buffer.End);
            result = await body.ReadAtLeastAsync(batchBytes, cancellationToken);
        }

        // Kestrel's may come with the body's last bytes too (canceled and completed): the upload ends complete.
        return new UploadChunk(result.Buffer, result.IsCompleted, result.IsCanceled && stop is not { Requested: false });
    }

    public void Consumed(in UploadChunk chunk) => body.AdvanceTo(chunk.Data.End);
}
