using System.Buffers;
using System.Buffers.Text;
using System.Text;
using Freight.Digests;
using Freight.Downloads;
using Freight.Files;
using Freight.Multipart;
using Freight.AspNetCore.Errors;
using Freight.Storage;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.StaticFiles;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Net.Http.Headers;

namespace Freight.AspNetCore.Files;

/// <summary>
/// The files API under the prefix the app maps it at (<c>app.MapFreightFiles("/files")</c>): <c>PUT</c>, <c>GET</c>,
/// <c>HEAD</c>, <c>DELETE /files/{path}</c>, <c>POST /files/{prefix}</c> (multipart/form-data, one stored file per
/// file part) and <c>GET /files?prefix=&amp;limit=&amp;cursor=</c>.
/// Uploads stream into the store while hashing (XXH3-128 for the ETag, and any digest sent or asked for) and
/// commit atomically only if they verify; downloads go out on Freight's file path (ranges, conditionals).
/// </summary>
internal static class FilesEndpoints
{
    private static readonly FileExtensionContentTypeProvider ContentTypes = new();

    public static RouteGroupBuilder Map(IEndpointRouteBuilder endpoints, PathString prefix)
    {
        endpoints.ServiceProvider.GetRequiredService<FreightRoutes>().MapFiles(prefix);
        // Resolved at the first request, not here: options are validated when the host starts (ValidateOnStart),
        // so an invalid one stops the host with its key named rather than failing this call.
        var api = new Lazy<FilesApi>(() => FilesApi.From(endpoints.ServiceProvider));
        var files = endpoints.MapGroup(prefix.Value ?? "");
        files.MapGet("", context => ListAsync(context, api.Value.Store, api.Value.Access, api.Value.Options));
        files.MapMethods("/{*path}", [HttpMethods.Get, HttpMethods.Head], context => GetAsync(context, api.Value.Store, api.Value.Access));
        files.MapPut("/{*path}", context => PutAsync(context, api.Value.Store, api.Value.Access, api.Value.Limiter, api.Value.Options, api.Value.MaxFileBytes));
        files.MapDelete("/{*path}", context => DeleteAsync(context, api.Value.Store, api.Value.Access));
        files.MapPost("", context => PostAsync(context, api.Value.Store, api.Value.Access, api.Value.Limiter, api.Value.Options, api.Value.MaxFileBytes, api.Value.Multipart));
        files.MapPost("/{*path}", context => PostAsync(context, api.Value.Store, api.Value.Access, api.Value.Limiter, api.Value.Options, api.Value.MaxFileBytes, api.Value.Multipart));
        return files;
    }

    private static async Task PutAsync(HttpContext context, IObjectStore store, FilesAccess access, UploadLimiter limiter, FilesOptions options, long maxFileBytes)
    {
        var request = context.Request;
        access.Demand(request, write: true);
        var key = FilesRequest.Key(request);
        if (request.Headers.ContentEncoding.Count > 0 && !string.Equals(request.Headers.ContentEncoding.ToString(), "identity", StringComparison.OrdinalIgnoreCase))
        {
            // RFC 9110 §15.5.16: the file is stored as sent, and digests are checked against it; a coded body would be neither.
            throw new ProblemException(StatusCodes.Status415UnsupportedMediaType, "Unsupported content coding", "Send the file without Content-Encoding.");
        }

        if (request.ContentLength > maxFileBytes)
        {
            throw FileUpload.TooLarge(maxFileBytes);
        }

        var (contentDigests, reprDigests, md5) = FilesRequest.SentDigests(request);
        var condition = FilesRequest.Condition(request);

        // Fail a condition before taking the body: no one should upload 1 GiB to learn it would not be kept.
        // The commit checks it again, atomically, against whatever happened meanwhile.
        var existing = await store.GetInfoAsync(key.Value, context.RequestAborted);
        if (!condition.IsMetBy(existing))
        {
            throw FilesRequest.PreconditionFailed();
        }

        using var slot = limiter.Enter(context);
        LimitUpload(context, maxFileBytes);
        var wantsSha256 = options.AlwaysComputeSha256 || WantsSha256(request);
        using var digests = new StreamingDigests(FileUpload.Algorithms(contentDigests, reprDigests, md5, wantsSha256));
        await using var writer = await store.BeginWriteAsync(key.Value, request.ContentLength, context.RequestAborted);
        var computed = await FileUpload.CopyAsync(request.BodyReader, writer, digests, maxFileBytes, context.RequestAborted);
        FileUpload.Verify(computed, contentDigests, reprDigests, md5);

        ObjectInfo info;
        try
        {
            info = await writer.CommitAsync(
                new ObjectCommit { ETag = computed.EntityTag, ContentType = request.ContentType, Digests = FileUpload.Keep(computed), Condition = condition },
                context.RequestAborted);
        }
        catch (PreconditionFailedException)
        {
            throw FilesRequest.PreconditionFailed();
        }

        var response = context.Response;
        response.Headers.ETag = info.ETag;
        if (computed.TryGetDigest(DigestAlgorithm.Sha256, out var sha256))
        {
            response.Headers[DigestFields.ReprDigestHeader] = DigestFields.Format(DigestAlgorithm.Sha256, sha256);
        }

        if (existing is null)
        {
            response.StatusCode = StatusCodes.Status201Created;
            response.Headers.Location = context.RequestServices.GetRequiredService<FreightRoutes>().FileUrl(request, key.Value);
            await response.WriteAsJsonAsync(StoredFile.From(info), context.RequestAborted);
        }
        else
        {
            response.StatusCode = StatusCodes.Status204NoContent;
        }
    }

    private static async Task PostAsync(HttpContext context, IObjectStore store, FilesAccess access, UploadLimiter limiter, FilesOptions options, long maxFileBytes, MultipartLimits limits)
    {
        var request = context.Request;
        access.Demand(request, write: true);
        var prefix = FilesRequest.Prefix(request.RouteValues["path"] as string);
        if (!MultipartBoundary.TryParse(request.ContentType, out var boundary))
        {
            throw new ProblemException(StatusCodes.Status415UnsupportedMediaType, "Expected multipart/form-data",
                "POST stores the file parts of a multipart/form-data body (RFC 7578) with a boundary parameter.");
        }

        using var slot = limiter.Enter(context);
        LimitUpload(context, long.MaxValue);
        var reader = new MultipartPipeReader(request.BodyReader, boundary, limits);
        var stored = new List<StoredFile>();
        var fields = new Dictionary<string, string>(StringComparer.Ordinal);
        MultipartSection? part;
        while ((part = await reader.ReadNextSectionAsync(context.RequestAborted)) is not null)
        {
            if (part.FileName is null)
            {
                // Form fields are small by nature; 64 KiB each keeps a form from becoming a memory sink.
                fields[part.Name ?? ""] = await reader.ReadSectionAsStringAsync(64 * 1024, context.RequestAborted);
                continue;
            }

            if (!prefix.TryAppend(Path.GetFileName(part.FileName), out var key, out var error))
            {
                throw new ProblemException(StatusCodes.Status400BadRequest, "Invalid file name", $"The part's filename '{part.FileName}': {error}");
            }

            // Each file part is its own atomic write: a part stored before a later one fails stays complete and valid.
            using var digests = new StreamingDigests([DigestAlgorithm.Sha256]);
            await using var writer = await store.BeginWriteAsync(key.Value, null, context.RequestAborted);
            var computed = await FileUpload.CopySectionAsync(reader, writer, digests, maxFileBytes, context.RequestAborted);
            var info = await writer.CommitAsync(
                new ObjectCommit { ETag = computed.EntityTag, ContentType = part.ContentType, Digests = FileUpload.Keep(computed) },
                context.RequestAborted);
            stored.Add(StoredFile.From(info));
        }

        if (stored.Count == 0)
        {
            throw new ProblemException(StatusCodes.Status400BadRequest, "No file", "The multipart body has no file part (a part with a filename).");
        }

        context.Response.StatusCode = StatusCodes.Status201Created;
        await context.Response.WriteAsJsonAsync(new StoredFiles(stored, fields), context.RequestAborted);
    }

    /// <summary>
    /// GET and HEAD. A store that keeps no old versions (S3) fails a reader whose version was replaced after it
    /// opened; until the answer has started, the key is opened again and the version that replaced it is served.
    /// </summary>
    private static async Task GetAsync(HttpContext context, IObjectStore store, FilesAccess access)
    {
        // Each try is a new open (a HEAD and a GET on S3): a key replaced during three reads in a row is being
        // rewritten without pause, and the 503 tells the client to come back (ProblemMiddleware).
        const int Tries = 3;
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                await GetVersionAsync(context, store, access);
                return;
            }
            catch (ObjectReplacedException) when (attempt < Tries && !context.Response.HasStarted)
            {
                context.Response.Clear();
            }
        }
    }

    private static async Task GetVersionAsync(HttpContext context, IObjectStore store, FilesAccess access)
    {
        var request = context.Request;
        access.Demand(request, write: false);
        var key = FilesRequest.Key(request);
        await using var reader = await store.OpenReadAsync(key.Value, context.RequestAborted) ?? throw FilesRequest.NotFound(key);
        var info = reader.Info;
        var contentType = info.ContentType ?? (ContentTypes.TryGetContentType(key.Name, out var known) ? known : "application/octet-stream");
        var representation = new FileRepresentation(info.Length, info.LastModified, EntityTagHeaderValue.Parse(info.ETag), contentType, reader.Content);
        if (request.Headers[WantDigest.WantReprDigestHeader].Count > 0)
        {
            // A 304 or 412 sends no representation: a digest not kept yet is not worth reading the whole object for.
            var answersWithBody = Preconditions.Evaluate(request, representation.EntityTag, representation.LastModified) == PreconditionOutcome.Proceed;
            await AnswerWantReprDigestAsync(context, store, reader, computeIfMissing: answersWithBody);
        }

        if (reader.FileHandle is null && reader.Content is null)
        {
            // A remote store (S3): the bytes come from one ranged read of the store per range.
            await FileResponder.SendAsync(context, representation, reader);
        }
        else
        {
            await FileResponder.SendAsync(context, representation, reader.FileHandle);
        }
    }

    private static async Task DeleteAsync(HttpContext context, IObjectStore store, FilesAccess access)
    {
        var request = context.Request;
        access.Demand(request, write: true);
        var key = FilesRequest.Key(request);
        try
        {
            if (!await store.DeleteAsync(key.Value, FilesRequest.Condition(request), context.RequestAborted))
            {
                throw FilesRequest.NotFound(key);
            }
        }
        catch (PreconditionFailedException)
        {
            throw FilesRequest.PreconditionFailed();
        }

        context.Response.StatusCode = StatusCodes.Status204NoContent;
    }

    private static async Task ListAsync(HttpContext context, IObjectStore store, FilesAccess access, FilesOptions options)
    {
        var request = context.Request;
        access.Demand(request, write: false);
        var query = request.Query;
        var prefix = FilesRequest.Prefix(query["prefix"]);
        var limit = options.MaxListLimit;
        if (query["limit"].Count > 0 && (!int.TryParse(query["limit"], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out limit) || limit < 1))
        {
            throw new ProblemException(StatusCodes.Status400BadRequest, "Invalid limit", "limit must be a whole number ≥ 1.");
        }

        string? after = null;
        if (query["cursor"].ToString() is { Length: > 0 } cursor && !TryDecodeCursor(cursor, out after))
        {
            throw new ProblemException(StatusCodes.Status400BadRequest, "Invalid cursor", "cursor must be a value a previous listing returned as nextCursor.");
        }

        // A prefix names a folder: "photos" lists photos/…, not photos-old/….
        var page = await store.ListAsync(prefix.IsRoot ? "" : prefix.Value + "/", Math.Min(limit, options.MaxListLimit), after, context.RequestAborted);
        await context.Response.WriteAsJsonAsync(
            new FileListing(page.Objects.Select(StoredFile.From).ToList(), page.NextCursor is null ? null : EncodeCursor(page.NextCursor)),
            context.RequestAborted);
    }

    /// <summary>
    /// Want-Repr-Digest (RFC 9530 §4): the stored digest, or (<paramref name="computeIfMissing"/>) one computed now
    /// and kept for the next request.
    /// </summary>
    private static async Task AnswerWantReprDigestAsync(HttpContext context, IObjectStore store, IObjectReader reader, bool computeIfMissing)
    {
        if (!WantDigest.TryParse(context.Request.Headers[WantDigest.WantReprDigestHeader], out var preferences)
            || WantDigest.SelectPreferred(preferences) is not { } algorithm)
        {
            // A hint (§4): an unreadable or unsatisfiable one is ignored.
            return;
        }

        var info = reader.Info;
        if (!info.Digests.TryGetValue(algorithm.Name, out var digest))
        {
            if (!computeIfMissing)
            {
                return;
            }

            digest = await ComputeDigestAsync(reader, algorithm, context.RequestAborted);
            try
            {
                await store.AddDigestsAsync(info.Key, info.ETag, new Dictionary<string, byte[]> { [algorithm.Name] = digest }, context.RequestAborted);
            }
            catch (IOException full) when (OutOfSpace.Is(full))
            {
                // Keeping it only spares the next request the read: a full disk must not fail a download.
            }
        }

        context.Response.Headers[DigestFields.ReprDigestHeader] = DigestFields.Format(algorithm, digest);
    }

    /// <summary>The digest of the reader's whole object, read through one stream: a single ranged read from a remote store (S3), not one per buffer.</summary>
    private static async Task<byte[]> ComputeDigestAsync(IObjectReader reader, DigestAlgorithm algorithm, CancellationToken cancellationToken)
    {
        using var digests = new StreamingDigests([algorithm]);
        var info = reader.Info;

        // An empty object has nothing to read, and S3 has no way to ask for zero bytes.
        if (info.Length > 0)
        {
            await using var source = await reader.OpenRangeAsync(0, info.Length, cancellationToken);
            var buffer = ArrayPool<byte>.Shared.Rent(1024 * 1024);
            try
            {
                for (var remaining = info.Length; remaining > 0;)
                {
                    var read = await source.ReadAsync(buffer.AsMemory(0, (int)Math.Min(buffer.Length, remaining)), cancellationToken);
                    if (read == 0)
                    {
                        // The digest of fewer bytes would be kept as the object's: fail the request instead.
                        throw new EndOfStreamException($"'{info.Key}' ended {remaining} bytes before its length.");
                    }

                    digests.Append(buffer.AsSpan(0, read));
                    remaining -= read;
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        return digests.Complete().GetDigest(algorithm);
    }

    private static bool WantsSha256(HttpRequest request) =>
        request.Headers[WantDigest.WantReprDigestHeader].Count > 0
        && WantDigest.TryParse(request.Headers[WantDigest.WantReprDigestHeader], out var preferences)
        && WantDigest.SelectPreferred(preferences) == DigestAlgorithm.Sha256;

    /// <summary>
    /// Kestrel's body-size limit for this upload: the file size. (The minimum upload rate is Kestrel's server-wide one,
    /// <see cref="FilesOptions.MinUploadRate"/>: a per-request rate is not supported on HTTP/2.)
    /// </summary>
    internal static void LimitUpload(HttpContext context, long maxBodyBytes)
    {
        // Only for a known length: on a chunked HTTP/1.1 body Kestrel counts the chunk framing against this limit too,
        // so a file of exactly the limit would be refused; FileUpload counts the data bytes exactly instead.
        if (maxBodyBytes != long.MaxValue && context.Request.ContentLength is not null
            && context.Features.Get<IHttpMaxRequestBodySizeFeature>() is { IsReadOnly: false } size)
        {
            size.MaxRequestBodySize = maxBodyBytes;
        }
    }


    private static string EncodeCursor(string key) => Base64Url.EncodeToString(Encoding.UTF8.GetBytes(key));

    private static bool TryDecodeCursor(string cursor, out string? key)
    {
        try
        {
            key = Encoding.UTF8.GetString(Base64Url.DecodeFromChars(cursor));
            return true;
        }
        catch (FormatException)
        {
            key = null;
            return false;
        }
    }
}

/// <summary>What the files API's handlers work with, resolved once.</summary>
internal sealed record FilesApi(IObjectStore Store, FilesAccess Access, UploadLimiter Limiter, FilesOptions Options, long MaxFileBytes, MultipartLimits Multipart)
{
    public static FilesApi From(IServiceProvider services)
    {
        var options = services.GetRequiredService<FilesOptions>();
        // Unset, a file may be as large as the server lets a request body be.
        var maxFileBytes = options.MaxFileBytes > 0 ? options.MaxFileBytes
            : services.GetRequiredService<Microsoft.Extensions.Options.IOptions<KestrelServerOptions>>().Value.Limits.MaxRequestBodySize ?? long.MaxValue;
        return new FilesApi(
            services.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files),
            services.GetRequiredService<FilesAccess>(),
            services.GetRequiredService<UploadLimiter>(),
            options,
            maxFileBytes,
            services.GetRequiredService<MultipartLimits>());
    }
}

/// <summary>A stored file as the API reports it.</summary>
public sealed record StoredFile(
    string Name,
    long Size,
    [property: System.Text.Json.Serialization.JsonPropertyName("etag")] string ETag,
    DateTimeOffset LastModified,
    string? ContentType,
    string? Sha256)
{
    internal static StoredFile From(ObjectInfo info)
    {
        ArgumentNullException.ThrowIfNull(info);
        return new(info.Key, info.Length, info.ETag, info.LastModified, info.ContentType,
            info.Digests.TryGetValue(DigestAlgorithm.Sha256.Name, out var sha256) ? Convert.ToHexStringLower(sha256) : null);
    }
}

/// <summary>The answer to a multipart POST: every stored file, and the form's other fields.</summary>
public sealed record StoredFiles(IReadOnlyList<StoredFile> Files, IReadOnlyDictionary<string, string> Fields);

/// <summary>One page of <c>GET /files</c>; pass <see cref="NextCursor"/> as <c>cursor</c> for the next.</summary>
public sealed record FileListing(IReadOnlyList<StoredFile> Items, string? NextCursor);
