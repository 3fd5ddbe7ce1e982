namespace Freight.Uploads;

/// <summary>
/// Where an upload's bytes come from, for <see cref="UploadPipeline"/>: a request body (<see cref="PipeBodySource"/>,
/// also a tus PATCH's) or a multipart file part (<see cref="MultipartSectionSource"/>). A struct implementation is
/// called without boxing: the pipeline is generic over it.
/// </summary>
internal interface IUploadSource
{
    /// <summary>The next bytes; a chunk must be handed back with <see cref="Consumed"/> before the next read.</summary>
    ValueTask<UploadChunk> ReadAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Hands <paramref name="chunk"/> back as read to its end. The pipeline calls it for every chunk, also when the
    /// chunk was refused or its write failed: a read left open makes Kestrel's drain of the rest fail and log it.
    /// </summary>
    void Consumed(in UploadChunk chunk);
}
