using System.Buffers.Text;
using System.Text;
using Freight.Digests;
using Freight.Files;
using Freight.Multipart;
using Freight.AspNetCore.Errors;
using Freight.AspNetCore.Results;
using Freight.Storage;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;

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
    /// <summary>The files API's store, its calls timed and traced (Telemetry): the app's one wrapper (<see cref="FilesStore"/>).</summary>
    internal static IObjectStore Store(IServiceProvider services) => services.GetRequiredService<FilesStore>().Instrumented;

    public static RouteGroupBuilder Map(IEndpointRouteBuilder endpoints, PathString prefix)
    {
        endpoints.ServiceProvider.GetRequiredService<FreightRoutes>().MapFiles(prefix);
        // Resolved at the first request, not here: options are validated when the host starts (ValidateOnStart),
        // so an invalid one stops the host with its key named rather than failing this call.
        var api = new Lazy<FilesApi>(() => FilesApi.From(endpoints.ServiceProvider));
        var files = endpoints.MapGroup(prefix.Value ?? "");
        files.MapGet("", context => ListAsync(context, api.Value.Store, api.Value.Access, api.Value.Options));
        files.MapMethods("/{*path}", [HttpMethods.Get, HttpMethods.Head], context => GetAsync(context, api.Value.Store, api.Value.Access));
        files.MapPut("/{*path}", context => PutAsync(context, api.Value.Store, api.Value.Access, api.Value.Upload));
        files.MapDelete("/{*path}", context => DeleteAsync(context, api.Value.Store, api.Value.Access));
        files.MapPost("", context => PostAsync(context, api.Value.Store, api.Value.Access, api.Value.Upload, api.Value.Multipart));
        files.MapPost("/{*path}", context => PostAsync(context, api.Value.Store, api.Value.Access, api.Value.Upload, api.Value.Multipart));
        return files;
    }

    private static async Task PutAsync(HttpContext context, IObjectStore store, FilesAccess access, UploadSettings settings)
    {
        if (access.Refuses(context, write: true, Freight.Telemetry.FreightTelemetry.Put))
        {
            return;
        }

        var key = FilesRequest.Key(context.Request);
        var (upload, refusal) = await FileUpload.TryStoreBodyAsync(context, store, key, settings);
        if (upload is null)
        {
            ProblemMiddleware.Refuse(context, refusal!);
            return;
        }

        var response = context.Response;
        response.Headers.ETag = upload.Object.ETag;
        if (upload.Object.Digests.TryGetValue(DigestAlgorithm.Sha256.Name, out var sha256))
        {
            response.Headers[DigestFields.ReprDigestHeader] = DigestFields.Format(DigestAlgorithm.Sha256, sha256);
        }

        if (upload.Created)
        {
            response.StatusCode = StatusCodes.Status201Created;
            response.Headers.Location = context.RequestServices.GetRequiredService<FreightRoutes>().FileUrl(context.Request, key.Value);
            await response.WriteAsJsonAsync(StoredFile.From(upload.Object), context.RequestAborted);
        }
        else
        {
            response.StatusCode = StatusCodes.Status204NoContent;
        }
    }

    private static async Task PostAsync(HttpContext context, IObjectStore store, FilesAccess access, UploadSettings settings, MultipartLimits limits)
    {
        var request = context.Request;
        if (access.Refuses(context, write: true))
        {
            return;
        }

        var prefix = FilesRequest.Prefix(request.RouteValues["path"] as string);
        if (!MultipartBoundary.TryParse(request.ContentType, out var boundary))
        {
            throw new ProblemException(StatusCodes.Status415UnsupportedMediaType, "Expected multipart/form-data",
                "POST stores the file parts of a multipart/form-data body (RFC 7578) with a boundary parameter.");
        }

        using var slot = settings.Limiter.Enter(context);
        if (settings.DecidesBodyLimit)
        {
            // Each file part is held to MaxFileBytes by the upload pipeline, the parts to the parser's MaxSections and a
            // field to 64 KiB: Kestrel's body limit (30 MB unless the app raised it) would cap the whole form instead.
            LimitUpload(context, maxBodyBytes: null);
        }

        var reader = new MultipartPipeReader(request.BodyReader, boundary, limits);
        var stored = new List<StoredFile>();
        var fields = new Dictionary<string, string>(StringComparer.Ordinal);
        MultipartSection? part;
        // A part that fails ends the request, but the parts before it stay stored: its problem lists them.
        ProblemExtensions.Add(context, "stored", stored);
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
            stored.Add(StoredFile.From(await FileUpload.StoreSectionAsync(context, reader, store, key, part.ContentType, settings.MaxFileBytes, context.RequestAborted)));
        }

        if (stored.Count == 0)
        {
            throw new ProblemException(StatusCodes.Status400BadRequest, "No file", "The multipart body has no file part (a part with a filename).");
        }

        context.Response.StatusCode = StatusCodes.Status201Created;
        await context.Response.WriteAsJsonAsync(new StoredFiles(stored, fields), context.RequestAborted);
    }

    /// <summary>GET and HEAD: the one stored-object answer <see cref="FreightResults.Object"/> gives too.</summary>
    private static async Task GetAsync(HttpContext context, IObjectStore store, FilesAccess access)
    {
        if (access.Refuses(context, write: false))
        {
            return;
        }

        var key = FilesRequest.Key(context.Request);
        if (!await StoredObjectResponder.TrySendAsync(context, store, key.Value, access.CacheControl))
        {
            var listUrl = context.Request.PathBase.Add(context.RequestServices.GetRequiredService<FreightRoutes>().Files).Value;
            ProblemMiddleware.Refuse(context, FilesRequest.NotFoundToRead(key, string.IsNullOrEmpty(listUrl) ? "/" : listUrl));
            return;
        }

        // The shared answer leaves a failed precondition and an unsatisfiable range bodiless, as StaticFiles and
        // Results.File do; the files API answers every error as a problem, as its writes do.
        var response = context.Response;
        switch (response.StatusCode)
        {
            case StatusCodes.Status412PreconditionFailed:
                ProblemMiddleware.Refuse(context, FilesRequest.ReadPreconditionFailed(response.Headers.ETag.ToString()));
                break;
            case StatusCodes.Status416RangeNotSatisfiable:
                ProblemMiddleware.Refuse(context, FilesRequest.RangeNotSatisfiable(response.Headers.ContentRange.ToString()));
                break;
        }
    }

    private static async Task DeleteAsync(HttpContext context, IObjectStore store, FilesAccess access)
    {
        var request = context.Request;
        if (access.Refuses(context, write: true))
        {
            return;
        }

        var key = FilesRequest.Key(request);
        try
        {
            if (!await store.DeleteAsync(key.Value, FilesRequest.Condition(request), context.RequestAborted))
            {
                ProblemMiddleware.Refuse(context, FilesRequest.NotFound(key));
                return;
            }
        }
        catch (PreconditionFailedException)
        {
            ProblemMiddleware.Refuse(context, FilesRequest.PreconditionFailed());
            return;
        }

        context.Response.StatusCode = StatusCodes.Status204NoContent;
    }

    private static async Task ListAsync(HttpContext context, IObjectStore store, FilesAccess access, FilesOptions options)
    {
        var request = context.Request;
        if (access.Refuses(context, write: false))
        {
            return;
        }

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
        context.Response.Headers.CacheControl = access.CacheControl;
        await context.Response.WriteAsJsonAsync(
            new FileListing(page.Objects.Select(StoredFile.From).ToList(), page.NextCursor is null ? null : EncodeCursor(page.NextCursor)),
            context.RequestAborted);
    }

    /// <summary>
    /// Kestrel's body-size limit for this upload: the file size, which may be more than the server-wide limit (an app's
    /// own Kestrel keeps its 30 MB default unless told otherwise; <see cref="FilesOptions.MaxFileBytes"/> decides here);
    /// null lifts it (a multipart POST, whose parts are held to it each).
    /// (The minimum upload rate is Kestrel's server-wide one, <see cref="FilesOptions.MinUploadRate"/>: a per-request
    /// rate is not supported on HTTP/2.)
    /// </summary>
    internal static void LimitUpload(HttpContext context, long? maxBodyBytes)
    {
        if (maxBodyBytes == long.MaxValue || context.Features.Get<IHttpMaxRequestBodySizeFeature>() is not { IsReadOnly: false } size)
        {
            return;
        }

        if (maxBodyBytes is null)
        {
            size.MaxRequestBodySize = null;
            return;
        }

        // A known length: Kestrel refuses it past the limit before anything is read. A body of unknown length (chunked
        // on HTTP/1.1, DATA frames without Content-Length on HTTP/2) gets no Kestrel limit at all: on HTTP/1.1 Kestrel
        // counts the chunk framing too, so a file of exactly the limit would be refused; the upload pipeline counts the
        // data bytes exactly and refuses past maxBodyBytes itself.
        size.MaxRequestBodySize = context.Request.ContentLength is null ? null : maxBodyBytes;
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
internal sealed record FilesApi(IObjectStore Store, FilesAccess Access, FilesOptions Options, UploadSettings Upload, MultipartLimits Multipart)
{
    public static FilesApi From(IServiceProvider services) => new(
        FilesEndpoints.Store(services),
        services.GetRequiredService<FilesAccess>(),
        services.GetRequiredService<FilesOptions>(),
        services.GetRequiredService<UploadSettings>(),
        services.GetRequiredService<MultipartLimits>());
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
    /// <summary>A stored object as the files API reports it: its key as the name, SHA-256 in lower-case hex when one was computed.</summary>
    public static StoredFile From(ObjectInfo info)
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
