using Freight.Digests;
using Freight.Files;
using Freight.Multipart;
using Freight.AspNetCore.Errors;
using Freight.AspNetCore.Uploads;
using Freight.Storage;
using Freight.Telemetry;
using Freight.Uploads;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Files;

/// <summary>
/// Streams one body (a PUT's, or a multipart file part's) into a store writer while hashing it: XXH3-128
/// always (the ETag), and the digests the client sent or asked for. Verifies them before the commit: a
/// mismatch aborts the write, so nothing is stored.
/// </summary>
internal static class FileUpload
{
    /// <summary>
    /// What a PUT does, for a user's own route (<see cref="FreightUploads"/>): <see cref="TryStoreBodyAsync"/>, its
    /// refusal thrown as the <see cref="ProblemException"/> Freight's problem handling answers.
    /// </summary>
    public static async Task<FreightUpload> StoreBodyAsync(HttpContext context, IObjectStore store, StorageKey key, UploadSettings settings)
    {
        var (upload, refusal) = await TryStoreBodyAsync(context, store, key, settings);
        return upload ?? throw refusal!;
    }

    /// <summary>
    /// What a PUT does: refuses a coded body, a declared length past the limit, a failed If-Match / If-None-Match and a
    /// client with too many uploads in flight before reading; streams the body into the store under a per-client
    /// upload slot; verifies every digest the client sent; commits atomically, checking the condition again. The
    /// refusals a client can send without a body (415, 413, 412, 429) are returned, not thrown: each throw costs
    /// first-chance exceptions through every await above it, and the files API answers them at will
    /// (<see cref="ProblemMiddleware.Refuse"/>). Refusals met while the body streams are thrown. Either way nothing is stored.
    /// </summary>
    public static async Task<(FreightUpload? Upload, ProblemException? Refusal)> TryStoreBodyAsync(HttpContext context, IObjectStore store, StorageKey key, UploadSettings settings)
    {
        var request = context.Request;
        var telemetry = UploadTelemetry.Start(context, FreightTelemetry.Put, key.Value);
        if (request.Headers.ContentEncoding.Count > 0 && !string.Equals(request.Headers.ContentEncoding.ToString(), "identity", StringComparison.OrdinalIgnoreCase))
        {
            // RFC 9110 §15.5.16: the file is stored as sent, and digests are checked against it; a coded body would be neither.
            return (null, new ProblemException(StatusCodes.Status415UnsupportedMediaType, "Unsupported content coding", "Send the file without Content-Encoding."));
        }

        if (request.ContentLength > settings.MaxFileBytes)
        {
            return (null, TooLarge(settings.MaxFileBytes));
        }

        var (contentDigests, reprDigests, md5) = FilesRequest.SentDigests(request);
        var condition = FilesRequest.Condition(request);

        // Fail a condition before taking the body: no one should upload 1 GiB to learn it would not be kept.
        // The commit checks it again, atomically, against whatever happened meanwhile.
        var existing = await store.GetInfoAsync(key.Value, context.RequestAborted);
        if (!condition.IsMetBy(existing))
        {
            return (null, FilesRequest.PreconditionFailed(existing?.ETag));
        }

        if (settings.Limiter.TryEnter(context, out var slot) is { } tooMany)
        {
            return (null, tooMany);
        }

        using (slot)
        {
            FilesEndpoints.LimitUpload(context, settings.MaxFileBytes);
            var wantsSha256 = settings.AlwaysComputeSha256 || WantsSha256(request);
            using var digests = new StreamingDigests(Algorithms(contentDigests, reprDigests, md5, wantsSha256));
            await using var writer = await store.BeginWriteAsync(key.Value, request.ContentLength, context.RequestAborted);
            var computed = await CopyAsync(new PipeBodySource(request.BodyReader, UploadBatch.Bytes), writer, digests, settings.MaxFileBytes, FreightTelemetry.Put, context.RequestAborted);
            Verify(computed, contentDigests, reprDigests, md5);
            try
            {
                var info = await writer.CommitAsync(
                    new ObjectCommit { ETag = computed.EntityTag, ContentType = request.ContentType, Digests = Keep(computed), Condition = condition },
                    context.RequestAborted);
                telemetry.Complete(info.Length);
                return (new FreightUpload(info, Created: existing is null), null);
            }
            catch (PreconditionFailedException)
            {
                // Another writer changed the file while this body streamed: the store refused the commit.
                return (null, FilesRequest.PreconditionFailed());
            }
        }
    }

    /// <summary>One multipart file part into the store as its own atomic write, hashed (XXH3-128 and SHA-256) as it arrives.</summary>
    public static async Task<ObjectInfo> StoreSectionAsync(HttpContext context, MultipartPipeReader reader, IObjectStore store, StorageKey key, string? contentType, long maxFileBytes, CancellationToken cancellationToken)
    {
        var telemetry = UploadTelemetry.Start(context, FreightTelemetry.Multipart, key.Value);
        using var digests = new StreamingDigests([DigestAlgorithm.Sha256]);
        await using var writer = await store.BeginWriteAsync(key.Value, null, cancellationToken);
        var computed = await CopyAsync(new MultipartSectionSource(reader), writer, digests, maxFileBytes, FreightTelemetry.Multipart, cancellationToken);
        var info = await writer.CommitAsync(new ObjectCommit { ETag = computed.EntityTag, ContentType = contentType, Digests = Keep(computed) }, cancellationToken);
        telemetry.Complete(info.Length);
        return info;
    }

    /// <summary>
    /// One body through the upload pipeline into <paramref name="writer"/>, hashed as it goes; more than
    /// <paramref name="maxBytes"/> is the 413 problem, and nothing is stored.
    /// </summary>
    private static async ValueTask<ComputedDigests> CopyAsync<TSource>(TSource source, IObjectWriter writer, StreamingDigests digests, long maxBytes, KeyValuePair<string, object?> protocol, CancellationToken cancellationToken)
        where TSource : IUploadSource
    {
        try
        {
            await UploadPipeline.CopyAsync(source, new ObjectWriterSink(writer), digests, maxBytes, protocol, cancellationToken);
        }
        catch (UploadTooLargeException)
        {
            throw TooLarge(maxBytes);
        }

        return digests.Complete();
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

    private static bool WantsSha256(HttpRequest request) =>
        request.Headers[WantDigest.WantReprDigestHeader].Count > 0
        && WantDigest.TryParse(request.Headers[WantDigest.WantReprDigestHeader], out var preferences)
        && WantDigest.SelectPreferred(preferences) == DigestAlgorithm.Sha256;
}
