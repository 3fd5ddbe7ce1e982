using Freight.Digests;
using Freight.Files;
using Freight.AspNetCore.Errors;
using Freight.Storage;
using Microsoft.AspNetCore.Http;
using Microsoft.Net.Http.Headers;

namespace Freight.AspNetCore.Files;

/// <summary>Reading a files-API request's path and headers, each failure a 400 problem that says what to fix.</summary>
internal static class FilesRequest
{
    public static StorageKey Key(HttpRequest request) => ParseKey(request.RouteValues["path"] as string);

    public static StorageKey ParseKey(string? raw) =>
        StorageKey.TryParse(raw, out var key, out var error)
            ? key
            : throw new ProblemException(StatusCodes.Status400BadRequest, "Invalid path", error);

    public static StoragePrefix Prefix(string? raw) =>
        StoragePrefix.TryParse(raw, out var prefix, out var error)
            ? prefix
            : throw new ProblemException(StatusCodes.Status400BadRequest, "Invalid path", error);

    /// <summary>The digests a client sent for the body (Content-Digest, Repr-Digest, Content-MD5), or a 400 when one is malformed.</summary>
    public static (IReadOnlyDictionary<string, byte[]> Content, IReadOnlyDictionary<string, byte[]> Representation, byte[]? Md5) SentDigests(HttpRequest request)
    {
        if (!DigestFields.TryParse(request.Headers[DigestFields.ContentDigestHeader], out var content))
        {
            throw Malformed(DigestFields.ContentDigestHeader, "a dictionary of sha-256=:base64: / sha-512=:base64: (RFC 9530 §2)");
        }

        if (!DigestFields.TryParse(request.Headers[DigestFields.ReprDigestHeader], out var representation))
        {
            throw Malformed(DigestFields.ReprDigestHeader, "a dictionary of sha-256=:base64: / sha-512=:base64: (RFC 9530 §3)");
        }

        byte[]? md5 = null;
        var md5Header = request.Headers[ContentMd5.HeaderName];
        if (md5Header.Count > 0 && !ContentMd5.TryParse(md5Header.ToString(), out md5))
        {
            throw Malformed(ContentMd5.HeaderName, "the base64 of 16 bytes (RFC 1864)");
        }

        return (content, representation, md5);
    }

    /// <summary>If-None-Match / If-Match of a write, as a store condition (RFC 9110 §13.1.1–2); a 400 for forms a write cannot use.</summary>
    public static WriteCondition Condition(HttpRequest request)
    {
        var headers = request.Headers;
        var ifNoneMatch = headers.IfNoneMatch;
        var ifMatch = headers.IfMatch;
        if (ifNoneMatch.Count == 0 && ifMatch.Count == 0)
        {
            return WriteCondition.None;
        }

        var condition = WriteCondition.None;
        if (ifNoneMatch.Count > 0)
        {
            // A write can only ask "create, never replace"; a list of tags would mean "unless it is one of these".
            if (ifNoneMatch.ToString().Trim() != "*")
            {
                throw new ProblemException(StatusCodes.Status400BadRequest, "Unsupported condition", "On a write, If-None-Match must be \"*\" (create only).");
            }

            condition = condition with { IfNoneExists = true };
        }

        if (ifMatch.Count > 0)
        {
            if (!EntityTagHeaderValue.TryParseList(ifMatch, out var tags))
            {
                throw Malformed("If-Match", "\"*\" or a list of quoted entity tags");
            }

            // Strong comparison (§13.1.1): a weak tag never matches a stored (strong) one.
            condition = condition with { IfMatch = tags.Select(t => t.Equals(EntityTagHeaderValue.Any) ? "*" : t.IsWeak ? "W/" + t.Tag.ToString() : t.Tag.ToString()).ToList() };
        }

        return condition;
    }

    /// <summary>
    /// 412 on a write. The file's current ETag goes with it when known (an absent file has none), so a client that lost
    /// a race sees which version it lost to without another request.
    /// </summary>
    public static ProblemException PreconditionFailed(string? currentETag = null) =>
        WithETag(new(StatusCodes.Status412PreconditionFailed, "Precondition failed", "The file's current state does not meet If-Match / If-None-Match; nothing was changed."), currentETag);

    /// <summary>412 on a read: the file is not the version If-Match or If-Unmodified-Since asked for (RFC 9110 §13.2.2); its current ETag goes with it.</summary>
    public static ProblemException ReadPreconditionFailed(string? currentETag) =>
        WithETag(new(StatusCodes.Status412PreconditionFailed, "Precondition failed", "The file's current state does not meet If-Match / If-Unmodified-Since."), currentETag);

    private static ProblemException WithETag(ProblemException problem, string? etag) =>
        string.IsNullOrEmpty(etag) ? problem : problem.WithHeader(HeaderNames.ETag, etag);

    /// <summary>416 with the <c>Content-Range: bytes */length</c> that tells the client the file's current length (RFC 9110 §15.5.17).</summary>
    public static ProblemException RangeNotSatisfiable(string contentRange) =>
        new(StatusCodes.Status416RangeNotSatisfiable, "Range not satisfiable", $"No range asked for overlaps the file ({contentRange}).",
            new Dictionary<string, string> { [HeaderNames.ContentRange] = contentRange });

    public static ProblemException NotFound(StorageKey key) =>
        new(StatusCodes.Status404NotFound, "Not found", $"There is no file '{key}'.");

    /// <summary>
    /// A read's 404, which also says how to list it if it is a folder: a GET of a folder's path is the usual way a
    /// newcomer meets it. Said, not checked: knowing would cost every 404 a listing (a request more on S3).
    /// </summary>
    public static ProblemException NotFoundToRead(StorageKey key, string listUrl) =>
        new(StatusCodes.Status404NotFound, "Not found", $"There is no file '{key}'; if that is a folder, GET {listUrl}?prefix={string.Join('/', key.Value.Split('/').Select(Uri.EscapeDataString))} lists it.");

    private static ProblemException Malformed(string header, string expected) =>
        new(StatusCodes.Status400BadRequest, "Malformed header", $"{header} is not valid: expected {expected}.");
}
