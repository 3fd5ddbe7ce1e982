using System.Runtime.CompilerServices;
using Freight.Multipart;

namespace Freight.Uploads;

/// <summary>The current section of a <see cref="MultipartPipeReader"/>: slices of the request's own buffers, no copy.</summary>
internal readonly struct MultipartSectionSource(MultipartPipeReader reader) : IUploadSource
{
    // Pooled: the read completes asynchronously whenever the client is slower than the server, and an async
    // method's state machine box would otherwise be allocated per chunk.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<UploadChunk> ReadAsync(CancellationToken cancellationToken)
    {
        var chunk = await reader.ReadSectionDataAsync(cancellationToken);
        return new UploadChunk(chunk.Data, chunk.IsCompleted);
    }

    public void Consumed(in UploadChunk chunk) => reader.ReleaseChunk();
}
