namespace Freight.Bench.Suites.Tus;

/// <summary>A finished tus upload: its URL (absolute), the offset the server acknowledged last, and how many PATCHes it took.</summary>
public sealed record TusUpload(Uri Location, long Offset, int Patches)
{
    /// <summary>The upload's id: the last segment of its URL (what @tus/server's file store names the file).</summary>
    public string Id => Uri.UnescapeDataString(Location.Segments[^1].TrimEnd('/'));
}
