using System.IO.Hashing;
using System.IO.Pipelines;
using Freight.Hashing;
using Freight.Digests;
using Freight.Storage;
using Freight.Uploads;

namespace Freight.Lab.Uploads;

/// <summary>
/// The lab's upload loops. <see cref="CopyAsync(PipeReader, IObjectWriter?, CancellationToken)"/> is Freight's
/// raw path, the product's <see cref="UploadPipeline"/>: whole read results hashed in place and handed to the
/// writer (one gather write per read), so no byte is copied by Freight between the socket buffers and the file.
/// The others reproduce the studies' stock loops (per-segment writes, stream reads of a fixed size) and stay
/// apart on purpose: they are what the pipeline is measured against.
/// </summary>
public static class BodyPump
{
    /// <summary>The product's batch (<see cref="Freight.Uploads.UploadBatch.Bytes"/>), so the lab measures the same loop.</summary>
    public const int BatchBytes = Freight.Uploads.UploadBatch.Bytes;

    /// <summary>
    /// Copies everything <paramref name="body"/> yields into <paramref name="writer"/> (or only hashes
    /// it when <paramref name="writer"/> is null) through the product's own upload pipeline, as a PUT does.
    /// The writer is not committed here.
    /// </summary>
    public static async ValueTask<UploadResult> CopyAsync(PipeReader body, IObjectWriter? writer, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(body);
        using var digests = new StreamingDigests();
        var length = await UploadPipeline.CopyAsync(new PipeBodySource(body, BatchBytes), new LabSink(writer), digests, long.MaxValue, protocol: null, cancellationToken);
        return new UploadResult(length, HashHex.ToHex(digests.Complete().ContentHash));
    }

    /// <summary>The plain pipe loop: whatever each read yields, one write per buffer segment.</summary>
    public static async ValueTask<UploadResult> CopyPerSegmentAsync(PipeReader body, IObjectWriter? writer, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(body);
        var hasher = new XxHash128();
        long length = 0;
        while (true)
        {
            var result = await body.ReadAsync(cancellationToken);
            try
            {
                foreach (var segment in result.Buffer)
                {
                    hasher.Append(segment.Span);
                    length += segment.Length;
                    if (writer is not null)
                    {
                        await writer.WriteAsync(segment, cancellationToken);
                    }
                }
            }
            finally
            {
                body.AdvanceTo(result.Buffer.End);
            }

            if (result.IsCanceled)
            {
                throw new OperationCanceledException("The body read was canceled before the upload ended.");
            }

            if (result.IsCompleted)
            {
                break;
            }
        }

        return new UploadResult(length, HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }

    /// <summary>Copies a stream with reads of <paramref name="bufferSize"/> bytes, as the stock paths do.</summary>
    public static async ValueTask<UploadResult> CopyAsync(Stream source, IObjectWriter? writer, int bufferSize, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(bufferSize);
        var hasher = new XxHash128();
        long length = 0;
        var buffer = System.Buffers.ArrayPool<byte>.Shared.Rent(bufferSize);
        try
        {
            int read;
            while ((read = await source.ReadAsync(buffer.AsMemory(0, bufferSize), cancellationToken)) > 0)
            {
                hasher.Append(buffer.AsSpan(0, read));
                length += read;
                if (writer is not null)
                {
                    await writer.WriteAsync(buffer.AsMemory(0, read), cancellationToken);
                }
            }
        }
        finally
        {
            System.Buffers.ArrayPool<byte>.Shared.Return(buffer);
        }

        return new UploadResult(length, HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }
}
