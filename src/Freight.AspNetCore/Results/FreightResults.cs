using Freight.Storage;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Results;

/// <summary>
/// Typed results that answer on Freight's file path from a route of your own: ETag and Last-Modified,
/// conditionals (304/412), byte ranges and multipart/byteranges (206/416), and Want-Repr-Digest — the same answer
/// as the files API's GET. Both describe themselves to OpenAPI (200, 206, 304, 404, 412, 416).
/// </summary>
/// <remarks>
/// Caching is the app's to choose: without <c>cacheControl</c> the answer carries none, and a browser keeps it for a
/// tenth of the file's age (heuristic freshness, from Last-Modified) without asking again. Pass <c>"no-cache"</c> for
/// a file that may be replaced (the browser revalidates each time: a 304 when it has not changed, as the files API
/// answers), <c>"private, no-cache"</c> for a user's own files, or a <c>max-age</c> for content that never changes.
/// </remarks>
public static class FreightResults
{
    /// <summary>
    /// The file at <paramref name="path"/>, a full path you have already confined to the folder it may come from;
    /// 404 (problem+json) when there is no such file. Small files come from Freight's file cache (a registered
    /// <see cref="Freight.Downloads.FileCache"/>, else a shared default one), larger ones are read from the open handle.
    /// </summary>
    /// <param name="path">The file to send.</param>
    /// <param name="contentType">The media type; by default from the file name's extension.</param>
    /// <param name="downloadName">When set, a <c>Content-Disposition: attachment</c> with this file name.</param>
    /// <param name="cacheControl">When set, the Cache-Control of every answer about the file (see the remarks).</param>
    public static FreightFileResult File(string path, string? contentType = null, string? downloadName = null, string? cacheControl = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        return new FreightFileResult(path, contentType, downloadName, cacheControl);
    }

    /// <summary>
    /// The stored object <paramref name="key"/> of <paramref name="store"/> (by default the files API's store); 404
    /// (problem+json) when there is none. A digest computed for Want-Repr-Digest is kept with the object.
    /// </summary>
    /// <param name="key">The object's key.</param>
    /// <param name="store">The store; by default the files API's.</param>
    /// <param name="cacheControl">When set, the Cache-Control of every answer about the object (see the remarks).</param>
    public static FreightObjectResult Object(string key, IObjectStore? store = null, string? cacheControl = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(key);
        return new FreightObjectResult(key, store, cacheControl);
    }
}
