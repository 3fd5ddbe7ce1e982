namespace Freight.AspNetCore.Tus;

/// <summary>
/// Options of the tus endpoint, bound from <c>Freight:Tus</c> unless <c>AddFreightTus</c> names another section.
/// Tokens, client limits and the store are the files API's.
/// </summary>
public sealed class TusOptions
{
    /// <summary>The configuration section bound when none is named.</summary>
    public const string SectionName = "Freight:Tus";

    /// <summary>
    /// Folder of the files store that finished uploads land in: <c>/files/{FilesPrefix}/{filename}</c>. Empty
    /// (default): <c>/files/{filename}</c>, as the client named it in Upload-Metadata.
    /// </summary>
    public string FilesPrefix { get; set; } = "";

    /// <summary>Largest upload (Tus-Max-Size); 0: the files API's MaxFileBytes, else the server's request body limit.</summary>
    public long MaxUploadBytes { get; set; }

    /// <summary>
    /// An unfinished upload expires this long after its last byte arrived (Upload-Expires), and a finished one's
    /// tus record (not its file) this long after it finished. 24 h: a day to resume, as tusd's examples use.
    /// </summary>
    public TimeSpan ExpireAfter { get; set; } = TimeSpan.FromHours(24);

    /// <summary>How often expired uploads are removed. 1 min: expiry is hours; a sweep lists one directory.</summary>
    public TimeSpan SweepInterval { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>
    /// Unfinished uploads (created, not yet finished, terminated or expired) one client address may hold; one more
    /// creation is 429 with Retry-After. A count, not bytes: it also bounds uploads of deferred length and the
    /// records each one leaves, and a client's bytes are then at most this many Tus-Max-Size. 64: eight times
    /// Files:MaxConcurrentUploadsPerClient, room for a client's parallel parts (concatenation) and paused uploads.
    /// </summary>
    public int MaxUnfinishedUploadsPerClient { get; set; } = 64;

    /// <summary>
    /// Bytes all unfinished uploads together may still expect (declared lengths less what arrived); a creation, or
    /// a length declared late, past it is 507. 0 (default): no fixed cap, the store's free space decides (file
    /// system, memory); a bucket has none to ask, so set it with S3 to bound what uploads may promise.
    /// </summary>
    public long MaxPendingBytes { get; set; }

    /// <summary>
    /// Free space the store keeps beyond what unfinished uploads expect: a creation that would promise it away is
    /// 507. 1 GiB: headroom for writes the count does not see (the files API's PUTs, records, logs).
    /// </summary>
    public long MinFreeBytes { get; set; } = 1L << 30;

    /// <summary>Adds every problem to <paramref name="errors"/>, each naming its key under <paramref name="section"/>.</summary>
    internal void Validate(string section, List<string> errors)
    {
        if (MaxUploadBytes < 0)
        {
            errors.Add($"{section}:MaxUploadBytes is {MaxUploadBytes}: use 0 (the files limit) or a positive size.");
        }

        if (ExpireAfter <= TimeSpan.Zero)
        {
            errors.Add($"{section}:ExpireAfter is {ExpireAfter}: it must be positive (e.g. 1.00:00:00 for a day).");
        }

        if (SweepInterval <= TimeSpan.Zero)
        {
            errors.Add($"{section}:SweepInterval is {SweepInterval}: it must be positive (e.g. 00:01:00).");
        }

        if (MaxUnfinishedUploadsPerClient < 1)
        {
            errors.Add($"{section}:MaxUnfinishedUploadsPerClient is {MaxUnfinishedUploadsPerClient}: it must be at least 1.");
        }

        if (MaxPendingBytes < 0)
        {
            errors.Add($"{section}:MaxPendingBytes is {MaxPendingBytes}: use 0 (the store's free space decides) or a positive size.");
        }

        if (MinFreeBytes < 0)
        {
            errors.Add($"{section}:MinFreeBytes is {MinFreeBytes}: use 0 or a positive size.");
        }

        if (!Freight.Files.StoragePrefix.TryParse(FilesPrefix, out _, out var error))
        {
            errors.Add($"{section}:FilesPrefix '{FilesPrefix}': {error}");
        }
    }
}
