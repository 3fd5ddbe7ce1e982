using System.Buffers;
using Freight.Storage;
using Freight.Uploads;

namespace Freight.Lab.Uploads;

/// <summary>
/// The lab's destinations for the upload pipeline: a store's writer (<c>?sink=file</c>) or, when there is none,
/// nothing at all (<c>?sink=memory</c>: the bytes are only hashed and counted).
/// </summary>
internal readonly struct LabSink(IObjectWriter? writer) : IUploadSink
{
    public ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken) =>
        writer is null ? ValueTask.CompletedTask : writer.WriteAsync(data, cancellationToken);
}
