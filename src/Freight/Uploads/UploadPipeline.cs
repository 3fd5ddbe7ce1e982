using Freight.Digests;
using Freight.Telemetry;

namespace Freight.Uploads;

/// <summary>
/// The one copy loop every upload runs — a PUT, each multipart file part, a tus PATCH and the lab's Freight
/// variants: reads the source, counts the bytes for telemetry, refuses past the limit, writes, hashes, and hands
/// every chunk back to the source whatever happened. Verifying the digests and committing stay with the caller,
/// which knows the protocol's answers.
/// </summary>
internal static class UploadPipeline
{
    /// <summary>
    /// Copies <paramref name="source"/> into <paramref name="sink"/> until the source ends and returns the bytes
    /// copied. Throws <see cref="UploadTooLargeException"/> before writing a chunk that would take the total past
    /// <paramref name="maxBytes"/>. <paramref name="digests"/> (when given) follow exactly the bytes written:
    /// stored first, hashed second, so a resumable upload's running digests never cover bytes the store does not
    /// hold. <paramref name="protocol"/> tags the bytes-received counter (null: not counted, as in the lab).
    /// </summary>
    /// <remarks>
    /// Generic over struct sources and sinks so the per-chunk calls are direct, with no boxing, closure or
    /// allocation per chunk; the sink writes the source's own buffers, so no byte is copied here.
    /// </remarks>
    public static async ValueTask<long> CopyAsync<TSource, TSink>(
        TSource source,
        TSink sink,
        StreamingDigests? digests,
        long maxBytes,
        KeyValuePair<string, object?>? protocol,
        CancellationToken cancellationToken)
        where TSource : IUploadSource
        where TSink : IUploadSink
    {
        long copied = 0;
        while (true)
        {
            var chunk = await source.ReadAsync(cancellationToken);
            try
            {
                var data = chunk.Data;
                if (protocol is { } tag)
                {
                    FreightTelemetry.UploadBytes.Add(data.Length, tag);
                }

                if (copied + data.Length > maxBytes)
                {
                    throw new UploadTooLargeException(maxBytes);
                }

                if (!data.IsEmpty)
                {
                    await sink.WriteAsync(data, cancellationToken);
                    digests?.Append(data);
                    copied += data.Length;
                }
            }
            finally
            {
                source.Consumed(chunk);
            }

            if (chunk.IsCanceled)
            {
                throw new OperationCanceledException("The body read was canceled before the upload ended.");
            }

            if (chunk.IsCompleted)
            {
                return copied;
            }
        }
    }
}
