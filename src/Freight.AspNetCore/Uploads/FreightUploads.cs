using Freight.AspNetCore.Files;
using Freight.Storage;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;

namespace Freight.AspNetCore.Uploads;

/// <summary>Freight's upload path from a route of your own.</summary>
public static class FreightUploads
{
    /// <summary>
    /// Streams the request body into <paramref name="store"/> (by default the files API's) under <paramref name="key"/>
    /// exactly as the files API's PUT does: Content-Digest, Repr-Digest and Content-MD5 verified, If-Match /
    /// If-None-Match honoured, the files API's size and per-client limits, XXH3-128 for the ETag (and SHA-256 when
    /// configured or asked for), one atomic commit. A refusal throws a problem (400, 412, 413, 415, 429, 507) that
    /// Freight's problem+json handling answers; nothing is stored then.
    /// </summary>
    public static Task<FreightUpload> StoreAsync(HttpContext context, string key, IObjectStore? store = null)
    {
        ArgumentNullException.ThrowIfNull(context);
        var services = context.RequestServices;
        return FileUpload.StoreBodyAsync(
            context,
            store ?? FilesEndpoints.Store(services),
            FilesRequest.ParseKey(key),
            services.GetRequiredService<UploadSettings>());
    }
}
