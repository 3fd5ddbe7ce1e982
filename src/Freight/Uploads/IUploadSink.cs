using System.Buffers;

namespace Freight.Uploads;

/// <summary>
/// Where <see cref="UploadPipeline"/> writes: a store's object writer (<see cref="ObjectWriterSink"/>), a
/// resumable upload's appender, or a lab sink. Committing, or keeping or discarding an append, stays with the caller.
/// </summary>
internal interface IUploadSink
{
    /// <summary>Stores <paramref name="data"/>; the memory is the source's and is handed back once this completes.</summary>
    ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken);
}
