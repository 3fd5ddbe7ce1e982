using Freight.Digests;
using Freight.Downloads;
using Freight.Storage;
using Freight.Telemetry;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.StaticFiles;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Net.Http.Headers;

namespace Freight.AspNetCore.Results;

/// <summary>
/// GET and HEAD of a stored object on Freight's file path — the one answer behind the files API's GET and
/// <see cref="FreightResults.Object(string, IObjectStore?, string?)"/>: validators, conditionals, ranges, Want-Repr-Digest,
/// and the bytes from the open file or from the store's reader.
/// </summary>
internal static class StoredObjectResponder
{
    private static readonly FileExtensionContentTypeProvider ContentTypes = new();

    /// <summary>
    /// A store that keeps no old versions (S3) fails a reader whose version was replaced after it opened; until the
    /// answer has started, the key is opened again and the version that replaced it is served. False, with nothing
    /// written, when there is no such object. <paramref name="cacheControl"/>, when set, goes on every answer about the
    /// object (200, 206, 304, 412, 416): set per try, since a retry clears the response.
    /// </summary>
    public static async Task<bool> TrySendAsync(HttpContext context, IObjectStore store, string key, string? cacheControl)
    {
        // Each try is a new open (a HEAD and a GET on S3): a key replaced during three reads in a row is being
        // rewritten without pause, and the 503 tells the client to come back (ProblemMiddleware).
        const int Tries = 3;
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await TrySendVersionAsync(context, store, key, cacheControl);
            }
            catch (ObjectReplacedException) when (attempt < Tries && !context.Response.HasStarted)
            {
                context.Response.Clear();
            }
        }
    }

    private static async Task<bool> TrySendVersionAsync(HttpContext context, IObjectStore store, string key, string? cacheControl)
    {
        using var download = HttpMethods.IsGet(context.Request.Method) ? DownloadTelemetry.Start(key) : null;
        await using var reader = await store.OpenReadAsync(key, context.RequestAborted);
        if (reader is null)
        {
            DownloadTelemetry.NotFound(download);
            return false;
        }

        if (cacheControl is not null)
        {
            context.Response.Headers.CacheControl = cacheControl;
        }

        var info = reader.Info;
        var contentType = info.ContentType ?? (ContentTypes.TryGetContentType(key, out var known) ? known : "application/octet-stream");
        var representation = new FileRepresentation(info.Length, info.LastModified, EntityTagHeaderValue.Parse(info.ETag), contentType, reader.Content);
        if (ReprDigestAnswer.Requested(context.Request))
        {
            // A 304 or 412 sends no representation: a digest not kept yet is not worth reading the whole object for.
            await AnswerWantReprDigestAsync(context, store, reader, computeIfMissing: ReprDigestAnswer.AnswersWithBody(context.Request, representation));
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

        DownloadTelemetry.Complete(download, context.Response);
        return true;
    }

    /// <summary>
    /// Want-Repr-Digest (RFC 9530 §4): the stored digest, or (<paramref name="computeIfMissing"/>) one computed now
    /// and kept for the next request.
    /// </summary>
    private static async Task AnswerWantReprDigestAsync(HttpContext context, IObjectStore store, IObjectReader reader, bool computeIfMissing)
    {
        if (ReprDigestAnswer.PreferredAlgorithm(context.Request) is not { } algorithm)
        {
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
                FilesLog.DigestNotKept(context.RequestServices.GetRequiredService<ILoggerFactory>().CreateLogger("Freight.Files"), info.Key, algorithm.Name, full.Message);
            }
        }

        ReprDigestAnswer.Write(context.Response, algorithm, digest);
    }

    /// <summary>The digest of the reader's whole object, read through one stream: a single ranged read from a remote store (S3), not one per buffer.</summary>
    private static async Task<byte[]> ComputeDigestAsync(IObjectReader reader, DigestAlgorithm algorithm, CancellationToken cancellationToken)
    {
        var info = reader.Info;

        // An empty object has nothing to read, and S3 has no way to ask for zero bytes.
        if (info.Length == 0)
        {
            return ReprDigestAnswer.Of([], algorithm);
        }

        await using var source = await reader.OpenRangeAsync(0, info.Length, cancellationToken);
        return await ReprDigestAnswer.ComputeAsync(info.Length, (buffer, _, token) => source.ReadAsync(buffer, token), algorithm, info.Key, cancellationToken);
    }
}
