using System.Buffers;
using Freight.Storage;

namespace Freight.Uploads;

/// <summary>An object store's write session: a PUT's or a multipart file part's destination.</summary>
internal readonly struct ObjectWriterSink(IObjectWriter writer) : IUploadSink
{
    public ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken) => writer.WriteAsync(data, cancellationToken);
}
