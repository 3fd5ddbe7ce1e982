using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace Freight.Uploads;

/// <summary>
/// A whole request body (a PUT's, a tus PATCH's, the lab's) read in batches of at least
/// <paramref name="batchBytes"/>: fewer, larger writes, each a gather write of the pipe's own segments. A canceled read
/// ends the upload; an upload's body read through the host's stop is an <see cref="UploadBodyReader"/>, whose reads
/// come back canceled only for the stop's cut.
/// </summary>
internal readonly struct PipeBodySource(PipeReader body, int batchBytes) : IUploadSource
{
    // Pooled: the read completes asynchronously whenever the client is slower than the server, and an async
    // method's state machine box would otherwise be allocated per chunk.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<UploadChunk> ReadAsync(CancellationToken cancellationToken)
    {
        var result = await body.ReadAtLeastAsync(batchBytes, cancellationToken);
        return new UploadChunk(result.Buffer, result.IsCompleted, result.IsCanceled);
    }

    public void Consumed(in UploadChunk chunk) => body.AdvanceTo(chunk.Data.End);
}
