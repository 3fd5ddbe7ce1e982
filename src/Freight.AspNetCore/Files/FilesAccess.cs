using System.Security.Cryptography;
using System.Text;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Files;

/// <summary>
/// Bearer-token access (RFC 6750) to the files API: read tokens may read, write tokens may read and write.
/// No token configured at all: open access (a loopback or trusted network). Tokens compare in constant time.
/// </summary>
internal sealed class FilesAccess(FilesOptions options)
{
    private readonly byte[][] _readTokens = options.ReadTokens.Select(Encoding.UTF8.GetBytes).ToArray();
    private readonly byte[][] _writeTokens = options.WriteTokens.Select(Encoding.UTF8.GetBytes).ToArray();

    public bool IsOpen => _readTokens.Length == 0 && _writeTokens.Length == 0;

    /// <summary>
    /// Cache-Control of every read answer (a file's 200, 206 and 304, a listing). Without it, a browser gave an answer
    /// with Last-Modified heuristic freshness (a tenth of the file's age: an hour for a file 10 hours old) and served
    /// the replaced bytes from its cache without asking, Authorization or not. no-cache lets it keep the copy but
    /// revalidate it every time (If-None-Match: a 304 without the body), and a plain fetch keeps its preflight cache,
    /// which fetch's cache: 'no-store' bypasses. With tokens, private too: RFC 9111 §3.5 already keeps an answer to a
    /// request with Authorization out of shared caches, but a proxy or CDN told to cache regardless would hand one
    /// user's file to the next. Open access leaves a shared cache free to keep the public files and revalidate them.
    /// </summary>
    public string CacheControl => IsOpen ? "no-cache" : "private, no-cache";

    /// <summary>
    /// Whether the request may not read, or write when <paramref name="write"/>: if so, its 401 problem (403 for a read
    /// token writing; with <c>WWW-Authenticate</c>) is set to answer it (<see cref="ProblemMiddleware.Refuse"/>, without a throw: any client
    /// can send a request without a token), and the caller returns. A refused <paramref name="upload"/> (its protocol)
    /// counts as an upload refused for its token, as any other refused upload counts.
    /// </summary>
    public bool Refuses(HttpContext context, bool write, KeyValuePair<string, object?>? upload = null)
    {
        ArgumentNullException.ThrowIfNull(context);
        if (IsOpen)
        {
            return false;
        }

        var header = context.Request.Headers.Authorization.ToString();
        if (!header.StartsWith("Bearer ", StringComparison.OrdinalIgnoreCase))
        {
            StartRefused(context, upload);
            ProblemMiddleware.Refuse(context, Unauthorized("Bearer realm=\"freight\"", "This server needs a bearer token: send Authorization: Bearer TOKEN."));
            return true;
        }

        var presented = Encoding.UTF8.GetBytes(header[7..].Trim());
        var reads = Matches(presented, _readTokens);
        if (Matches(presented, _writeTokens) || (!write && reads))
        {
            return false;
        }

        if (reads)
        {
            // RFC 6750 §3.1: a valid token without the right is insufficient_scope, 403; a client that took it for
            // invalid_token would look for a new token, where it needs one that may write.
            StartRefused(context, upload);
            ProblemMiddleware.Refuse(context, new ProblemException(StatusCodes.Status403Forbidden, "Forbidden", "The token may read, not write: writing takes a write token.",
                new Dictionary<string, string> { ["WWW-Authenticate"] = "Bearer realm=\"freight\", error=\"insufficient_scope\"" }));
            return true;
        }

        // RFC 6750 §3.1: invalid_token for a token that is not accepted.
        StartRefused(context, upload);
        ProblemMiddleware.Refuse(context, Unauthorized("Bearer realm=\"freight\", error=\"invalid_token\"", "The token is not valid here."));
        return true;
    }

    /// <summary>The refused upload, started for the problem middleware to end as refused (unauthorized, forbidden).</summary>
    private static void StartRefused(HttpContext context, KeyValuePair<string, object?>? upload)
    {
        if (upload is { } protocol)
        {
            Freight.Telemetry.UploadTelemetry.Start(context, protocol, key: null);
        }
    }

    private static bool Matches(byte[] presented, byte[][] tokens)
    {
        var found = false;
        foreach (var token in tokens)
        {
            found |= CryptographicOperations.FixedTimeEquals(presented, token);
        }

        return found;
    }

    private static ProblemException Unauthorized(string challenge, string detail) =>
        new(StatusCodes.Status401Unauthorized, "Unauthorized", detail, new Dictionary<string, string> { ["WWW-Authenticate"] = challenge });
}
