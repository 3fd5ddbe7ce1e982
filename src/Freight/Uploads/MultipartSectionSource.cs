using Freight.Multipart;

namespace Freight.Uploads;

/// <summary>The current section of a <see cref="MultipartPipeReader"/>: slices of the request's own buffers, no copy.</summary>
internal readonly struct MultipartSectionSource(MultipartPipeReader reader) : IUploadSource
{
    public async ValueTask<UploadChunk> ReadAsync(CancellationToken cancellationToken)
    {
        var chunk = await reader.ReadSectionDataAsync(cancellationToken);
        return new UploadChunk(chunk.Data, chunk.IsCompleted);
    }

    public void Consumed(in UploadChunk chunk) => reader.ReleaseChunk();
}
