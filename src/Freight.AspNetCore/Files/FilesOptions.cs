using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace Freight.AspNetCore.Files;

/// <summary>
/// Options of the files API, bound from <c>Freight:Files</c> unless <c>AddFreightFiles</c> names another section.
/// Defaults are safe for a loopback or trusted network. The store is chosen apart (<c>AddFreightFileSystemStore</c>, ...).
/// </summary>
public sealed class FilesOptions
{
    /// <summary>The configuration section bound when none is named.</summary>
    public const string SectionName = "Freight:Files";

    /// <summary>Bearer tokens that may read (GET, HEAD, list). Empty with <see cref="WriteTokens"/> empty: no authentication.</summary>
    public List<string> ReadTokens { get; set; } = [];

    /// <summary>Bearer tokens that may write (PUT, POST, DELETE) — and read.</summary>
    public List<string> WriteTokens { get; set; } = [];

    /// <summary>Largest file a PUT or a multipart part may store; 0: the server's request body limit (Kestrel's MaxRequestBodySize).</summary>
    public long MaxFileBytes { get; set; }

    /// <summary>
    /// Uploads one client address may have in flight; more get 429 with Retry-After. 8: enough for a browser's
    /// parallel uploads, few enough that one client cannot hold every connection and disk slot.
    /// </summary>
    public int MaxConcurrentUploadsPerClient { get; set; } = 8;

    /// <summary>
    /// Slowest upload accepted, after a 5 s grace period: a client trickling bytes is cut off (408) instead of holding a
    /// connection and a temp file. 64 KiB/s. It is Kestrel's server-wide MinRequestBodyDataRate, which Kestrel holds
    /// per request on HTTP/1.1 but per connection on HTTP/2, aborting the connection; Freight's uploads on HTTP/2 are
    /// taken out of Kestrel's and held to it per stream by Freight, which answers that stream alone. Time the server spends
    /// not reading (writing to the store) does not count.
    /// </summary>
    public double MinUploadBytesPerSecond { get; set; } = 64 * 1024;

    /// <summary><see cref="MinUploadBytesPerSecond"/> as Kestrel's limit; null (no minimum) for 0.</summary>
    public MinDataRate? MinUploadRate =>
        MinUploadBytesPerSecond > 0 ? new MinDataRate(MinUploadBytesPerSecond, TimeSpan.FromSeconds(5)) : null;

    /// <summary>
    /// Compute SHA-256 on every PUT and keep it (answers Want-Repr-Digest without reading the file again). Off by
    /// default: SHA-256 runs at ~1.4 GB/s a core here, slower than an upload; it is computed anyway when the
    /// client sends a sha-256 digest or asks for one (Want-Repr-Digest on the PUT).
    /// </summary>
    public bool AlwaysComputeSha256 { get; set; }

    /// <summary>Most entries one listing page returns (the <c>limit</c> query is capped to it).</summary>
    public int MaxListLimit { get; set; } = 1000;

    /// <summary>Adds every problem to <paramref name="errors"/>, each naming its key under <paramref name="section"/>.</summary>
    internal void Validate(string section, List<string> errors)
    {
        if (MaxFileBytes < 0)
        {
            errors.Add($"{section}:MaxFileBytes is {MaxFileBytes}: use 0 (the body limit) or a positive size.");
        }

        if (MaxConcurrentUploadsPerClient < 1)
        {
            errors.Add($"{section}:MaxConcurrentUploadsPerClient is {MaxConcurrentUploadsPerClient}: it must be at least 1.");
        }

        if (!(MinUploadBytesPerSecond >= 0))
        {
            errors.Add($"{section}:MinUploadBytesPerSecond is {MinUploadBytesPerSecond}: use 0 (no minimum) or a positive rate.");
        }

        if (MaxListLimit < 1)
        {
            errors.Add($"{section}:MaxListLimit is {MaxListLimit}: it must be at least 1.");
        }

        if (ReadTokens.Concat(WriteTokens).Any(string.IsNullOrWhiteSpace))
        {
            errors.Add($"{section}:ReadTokens/WriteTokens contain an empty token.");
        }
    }
}
