using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore;

/// <summary>
/// Where the app mapped the files API and tus (the prefixes given to <c>MapFreightFiles</c> / <c>MapFreightTus</c>),
/// so Location, Content-Location and Upload-Concat URLs follow the caller's choice instead of assuming /files and /tus.
/// </summary>
internal sealed class FreightRoutes
{
    /// <summary>The files API's prefix (e.g. <c>/files</c>; empty at the root).</summary>
    public PathString Files { get; private set; }

    /// <summary>Whether the files API was mapped.</summary>
    public bool FilesMapped { get; private set; }

    /// <summary>The tus endpoint's prefix (e.g. <c>/tus</c>; empty at the root).</summary>
    public PathString Tus { get; set; }

    public void MapFiles(PathString prefix)
    {
        Files = prefix;
        FilesMapped = true;
    }

    /// <summary><paramref name="prefix"/> as a route prefix: a leading '/', no trailing one ("/" is the root).</summary>
    public static PathString Prefix(string prefix, string parameterName)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        if (!prefix.StartsWith('/') || prefix.Contains('{', StringComparison.Ordinal) || prefix.Contains('?', StringComparison.Ordinal))
        {
            throw new ArgumentException($"A route prefix starts with '/' and has no parameters or query, e.g. \"/files\"; got \"{prefix}\".", parameterName);
        }

        return new PathString(prefix.TrimEnd('/'));
    }

    /// <summary>The URL path of the stored file <paramref name="key"/> (each segment escaped); null when the files API is not mapped.</summary>
    public string? FileUrl(HttpRequest request, string key) =>
        FilesMapped
            ? request.PathBase.Add(Files).Value + "/" + string.Join('/', key.Split('/').Select(Uri.EscapeDataString))
            : null;

    /// <summary>The URL path of the tus upload <paramref name="id"/>.</summary>
    public string UploadUrl(HttpRequest request, string id) => request.PathBase.Add(Tus).Value + "/" + id;
}
