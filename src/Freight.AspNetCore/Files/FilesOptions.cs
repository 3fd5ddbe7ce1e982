using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace Freight.AspNetCore.Files;

/// <summary>Options of the files API (<c>Freight:Files</c>). Defaults are safe for a loopback or trusted network.</summary>
public sealed class FilesOptions
{
    /// <summary>
    /// <c>FileSystem</c> (default: <c>{DataDirectory}/files</c>), <c>Memory</c>, or <c>S3</c> (a bucket, <c>Freight:S3</c>;
    /// tus uploads wait there too, so any node can continue them). Case-insensitive.
    /// </summary>
    public string Store { get; set; } = "FileSystem";

    public bool IsMemoryStore => Store.Equals("Memory", StringComparison.OrdinalIgnoreCase);

    public bool IsS3Store => Store.Equals("S3", StringComparison.OrdinalIgnoreCase);

    /// <summary>The file-system store's root; empty: <c>files</c> under the data directory.</summary>
    public string Directory { get; set; } = "";

    /// <summary>Bearer tokens that may read (GET, HEAD, list). Empty with <see cref="WriteTokens"/> empty: no authentication.</summary>
    public List<string> ReadTokens { get; set; } = [];

    /// <summary>Bearer tokens that may write (PUT, POST, DELETE) — and read.</summary>
    public List<string> WriteTokens { get; set; } = [];

    /// <summary>Largest file a PUT or a multipart part may store; 0: the server's MaxRequestBodyBytes.</summary>
    public long MaxFileBytes { get; set; }

    /// <summary>
    /// Uploads one client address may have in flight; more get 429 with Retry-After. 8: enough for a browser's
    /// parallel uploads, few enough that one client cannot hold every connection and disk slot.
    /// </summary>
    public int MaxConcurrentUploadsPerClient { get; set; } = 8;

    /// <summary>
    /// Slowest upload accepted, after a 5 s grace period: a client trickling bytes is cut off instead of holding a
    /// connection and a temp file. 64 KiB/s. It is Kestrel's server-wide MinRequestBodyDataRate, the only form
    /// Kestrel enforces on HTTP/2 (per connection, over all its streams' bodies; per request on HTTP/1.1), so every
    /// request body is held to it. Time the server spends not reading (writing to the store) does not count.
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

    public void Validate(List<string> errors)
    {
        ArgumentNullException.ThrowIfNull(errors);
        if (!IsMemoryStore && !IsS3Store && !Store.Equals("FileSystem", StringComparison.OrdinalIgnoreCase))
        {
            errors.Add($"Freight:Files:Store is '{Store}': use FileSystem, Memory or S3.");
        }

        if (MaxFileBytes < 0)
        {
            errors.Add($"Freight:Files:MaxFileBytes is {MaxFileBytes}: use 0 (the body limit) or a positive size.");
        }

        if (MaxConcurrentUploadsPerClient < 1)
        {
            errors.Add($"Freight:Files:MaxConcurrentUploadsPerClient is {MaxConcurrentUploadsPerClient}: it must be at least 1.");
        }

        if (!(MinUploadBytesPerSecond >= 0))
        {
            errors.Add($"Freight:Files:MinUploadBytesPerSecond is {MinUploadBytesPerSecond}: use 0 (no minimum) or a positive rate.");
        }

        if (MaxListLimit < 1)
        {
            errors.Add($"Freight:Files:MaxListLimit is {MaxListLimit}: it must be at least 1.");
        }

        if (ReadTokens.Concat(WriteTokens).Any(string.IsNullOrWhiteSpace))
        {
            errors.Add("Freight:Files:ReadTokens/WriteTokens contain an empty token.");
        }
    }
}
