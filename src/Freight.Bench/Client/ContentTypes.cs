using Microsoft.AspNetCore.StaticFiles;

namespace Freight.Bench.Client;

/// <summary>The Content-Type put sends: ASP.NET Core's extension table (the one StaticFiles serves with), else octet-stream.</summary>
internal static class ContentTypes
{
    public const string Fallback = "application/octet-stream";

    private static readonly FileExtensionContentTypeProvider Provider = new();

    public static string For(string path) => Provider.TryGetContentType(path, out var type) ? type : Fallback;
}
