using System.IO.Pipelines;
using Freight.Digests;
using Freight.Multipart;
using Freight.Server.Errors;
using Freight.Storage;
using Freight.Telemetry;
using Freight.Uploads;
using Microsoft.AspNetCore.Http;

namespace Freight.Server.Files;

/// <summary>
/// Streams one body (a PUT's, or a multipart file part's) into a store writer while hashing it: XXH3-128
/// always (the ETag), and the digests the client sent or asked for. Verifies them before the commit: a
/// mismatch aborts the write, so nothing is stored.
/// </summary>
internal static class FileUpload
{
    public static async ValueTask<ComputedDigests> CopyAsync(PipeReader body, IObjectWriter writer, StreamingDigests digests, long maxBytes, CancellationToken cancellationToken)
    {
        while (true)
        {
            var result = await body.ReadAtLeastAsync(BodyPump.BatchBytes, cancellationToken);
            var buffer = result.Buffer;
            try
            {
                FreightTelemetry.UploadBytes.Add(buffer.Length, FreightTelemetry.Put);
                if (writer.Length + buffer.Length > maxBytes)
                {
                    throw TooLarge(maxBytes);
                }

                digests.Append(buffer);
                if (!buffer.IsEmpty)
                {
                    await writer.WriteAsync(buffer, cancellationToken);
                }
            }
            finally
            {
                // Also when refused or the write failed: a read left open makes Kestrel's drain of the rest fail and log it.
                body.AdvanceTo(buffer.End);
            }

            if (result.IsCanceled)
            {
                throw new OperationCanceledException("The body read was canceled before the upload ended.");
            }

            if (result.IsCompleted)
            {
                return digests.Complete();
            }
        }
    }

    public static async ValueTask<ComputedDigests> CopySectionAsync(MultipartPipeReader reader, IObjectWriter writer, StreamingDigests digests, long maxBytes, CancellationToken cancellationToken)
    {
        try
        {
            while (true)
            {
                var chunk = await reader.ReadSectionDataAsync(cancellationToken);
                FreightTelemetry.UploadBytes.Add(chunk.Data.Length, FreightTelemetry.Multipart);
                if (writer.Length + chunk.Data.Length > maxBytes)
                {
                    throw TooLarge(maxBytes);
                }

                digests.Append(chunk.Data);
                if (!chunk.Data.IsEmpty)
                {
                    await writer.WriteAsync(chunk.Data, cancellationToken);
                }

                if (chunk.IsCompleted)
                {
                    return digests.Complete();
                }
            }
        }
        finally
        {
            reader.ReleaseChunk();
        }
    }

    /// <summary>Every digest the client sent that differs from what arrived, as one 400 problem; nothing when all match.</summary>
    public static void Verify(ComputedDigests computed, IReadOnlyDictionary<string, byte[]> content, IReadOnlyDictionary<string, byte[]> representation, byte[]? md5)
    {
        var mismatches = computed.Verify(content).Select(m => $"Content-Digest {Counted(m)}")
            .Concat(computed.Verify(representation).Select(m => $"Repr-Digest {Counted(m)}"))
            .ToList();
        if (md5 is not null && computed.Verify(DigestAlgorithm.Md5, md5) is { } md5Mismatch)
        {
            mismatches.Add($"Content-MD5 {Counted(md5Mismatch)}");
        }

        if (mismatches.Count > 0)
        {
            throw new ProblemException(StatusCodes.Status400BadRequest, ProblemException.DigestMismatchTitle,
                $"The body that arrived does not match the digest sent ({string.Join("; ", mismatches)}); nothing was stored.");
        }
    }

    private static DigestMismatch Counted(DigestMismatch mismatch)
    {
        FreightTelemetry.DigestMismatch(mismatch.Algorithm.Name);
        return mismatch;
    }

    /// <summary>The algorithms to compute: what the client sent, plus SHA-256 when configured or asked for.</summary>
    public static List<DigestAlgorithm> Algorithms(IReadOnlyDictionary<string, byte[]> content, IReadOnlyDictionary<string, byte[]> representation, byte[]? md5, bool sha256)
    {
        var algorithms = DigestFields.VerifiableAlgorithms(content).Concat(DigestFields.VerifiableAlgorithms(representation)).ToList();
        if (md5 is not null)
        {
            algorithms.Add(DigestAlgorithm.Md5);
        }

        if (sha256)
        {
            algorithms.Add(DigestAlgorithm.Sha256);
        }

        return algorithms.Distinct().ToList();
    }

    /// <summary>The digests worth keeping with the object (RFC 9530 names; MD5 is only checked).</summary>
    public static Dictionary<string, byte[]> Keep(ComputedDigests computed)
    {
        var kept = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (var algorithm in computed.Algorithms)
        {
            if (algorithm != DigestAlgorithm.Md5)
            {
                kept[algorithm.Name] = computed.GetDigest(algorithm);
            }
        }

        return kept;
    }

    public static ProblemException TooLarge(long maxBytes) =>
        new(StatusCodes.Status413PayloadTooLarge, "File too large", $"A file may hold at most {maxBytes} bytes; nothing was stored.");
}
