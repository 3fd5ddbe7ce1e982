using System.Buffers;
using System.Runtime.CompilerServices;
using Freight.Resumable;
using Freight.Uploads;

namespace Freight.AspNetCore.Tus;

/// <summary>
/// A PATCH's destination: the upload's appender, and the chunk's Upload-Checksum (when sent) over exactly the
/// bytes stored, as the pipeline's running digests are.
/// </summary>
internal readonly struct TusAppendSink(IResumableUploadAppender appender, TusChecksum? checksum) : IUploadSink
{
    // Pooled: the write completes asynchronously on a slow disk or S3, and an async method's state machine box
    // would otherwise be allocated per chunk.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken)
    {
        await appender.WriteAsync(data, cancellationToken);
        checksum?.Append(data);
    }
}
