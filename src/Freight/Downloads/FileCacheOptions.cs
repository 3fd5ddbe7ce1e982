namespace Freight.Downloads;

/// <summary>Limits of <see cref="FileCache"/>. Defaults are safe for a server with a few hundred MiB to spare.</summary>
public sealed class FileCacheOptions
{
    /// <summary>
    /// Files up to this size are kept in memory whole. 64 KiB: at 4 and 16 KiB reading a cached copy instead
    /// of open/fstat/read/close per request is what lifts static/freight above the stock paths (docs/results/
    /// 2026-11-21-static.md); past 64 KiB the copy to the socket dominates and disk reads cost little more.
    /// 0 disables content caching (metadata is still cached).
    /// </summary>
    public int MaxCachedFileBytes { get; set; } = 64 * 1024;

    /// <summary>The most file content bytes kept in memory; new files are served from disk beyond it.</summary>
    public long MaxCachedBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>The most entries (cached content or metadata only) kept; past it the cache starts over.</summary>
    public int MaxEntries { get; set; } = 10_000;

    /// <summary>
    /// The most files larger than <see cref="MaxCachedFileBytes"/> kept open between requests (one descriptor each), so
    /// their GETs skip open, statx and close: 12–16 % less server CPU a 128 KiB response under wrk, every round
    /// (docs/results/2026-11-27-request-overhead.md). A kept file is let go when the entry is (revalidation finds
    /// another version, the files API changes it, the cache starts over). 0: every request opens the file.
    /// </summary>
    public int MaxOpenFiles { get; set; } = 1_000;

    /// <summary>
    /// How long an entry is trusted before the file is looked at again (one stat). Changes made through
    /// <see cref="FileCache.Invalidate"/> (the files API's own writes) show at once; a file changed behind
    /// the server's back shows within this time, as with nginx's open_file_cache_valid. Zero: every request.
    /// </summary>
    public TimeSpan RevalidateAfter { get; set; } = TimeSpan.FromSeconds(1);
}
