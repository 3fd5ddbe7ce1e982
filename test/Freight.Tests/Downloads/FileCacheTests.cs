using Freight.Downloads;
using Freight.Lab.Payload;
using Microsoft.Net.Http.Headers;

namespace Freight.Tests.Downloads;

public sealed class FileCacheTests : IDisposable
{
    // Long enough that no entry goes stale while a test runs: freshness is then decided by the file alone.
    private static readonly TimeSpan Long = TimeSpan.FromHours(1);

    private static readonly DateTime FirstWrite = new(2026, 3, 4, 5, 6, 7, 891, DateTimeKind.Utc);

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    /// <summary>Writes <paramref name="content"/> to <paramref name="name"/> with the given modification time.</summary>
    private string Write(string name, byte[] content, DateTime? lastWriteUtc = null)
    {
        var path = _dir.Combine(name);
        File.WriteAllBytes(path, content);
        File.SetLastWriteTimeUtc(path, lastWriteUtc ?? FirstWrite);
        return path;
    }

    private static FileRepresentation Describe(FileCache cache, string path)
    {
        using var file = File.OpenHandle(path);
        return cache.Describe(path, file);
    }

    private static FileCache Cache(int maxCachedFileBytes = 64 * 1024, long maxCachedBytes = 64L * 1024 * 1024, int maxEntries = 10_000, TimeSpan? revalidateAfter = null) =>
        new(new FileCacheOptions
        {
            MaxCachedFileBytes = maxCachedFileBytes,
            MaxCachedBytes = maxCachedBytes,
            MaxEntries = maxEntries,
            RevalidateAfter = revalidateAfter ?? Long,
        });

    [Fact]
    public void Describe_SmallFile_CachesItsContent()
    {
        var bytes = DeterministicPayload.Create(4096);
        var path = Write("small.bin", bytes);
        var cache = Cache();

        var described = Describe(cache, path);

        Assert.Equal(bytes, described.Content?.ToArray());
        Assert.Equal(4096, described.Length);
        Assert.Equal(4096, cache.CachedBytes);
        Assert.Equal(1, cache.Count);
        var fresh = cache.TryGetFresh(path);
        Assert.Same(described, fresh);
        Assert.Equal(bytes, fresh!.Content?.ToArray());
    }

    [Fact]
    public void Describe_FileOfExactlyMaxCachedFileBytes_CachesItsContent()
    {
        var bytes = DeterministicPayload.Create(1024);
        var path = Write("edge.bin", bytes);
        var cache = Cache(maxCachedFileBytes: 1024);

        var described = Describe(cache, path);

        Assert.Equal(bytes, described.Content?.ToArray());
        Assert.Equal(1024, cache.CachedBytes);
    }

    [Fact]
    public void Describe_FileAboveMaxCachedFileBytes_KeepsMetadataOnly()
    {
        var path = Write("large.bin", DeterministicPayload.Create(1025));
        var cache = Cache(maxCachedFileBytes: 1024);

        var described = Describe(cache, path);

        Assert.Null(described.Content);
        Assert.Equal(1025, described.Length);
        Assert.Null(cache.TryGetFresh(path));
        Assert.Equal(0, cache.CachedBytes);
        Assert.Equal(1, cache.Count);
    }

    [Fact]
    public void Describe_MaxCachedFileBytesZero_CachesNoContent()
    {
        var path = Write("one.bin", [42]);
        var cache = Cache(maxCachedFileBytes: 0);

        var described = Describe(cache, path);

        Assert.Null(described.Content);
        Assert.Null(cache.TryGetFresh(path));
        Assert.Equal(0, cache.CachedBytes);
    }

    [Fact]
    public void Describe_UnchangedFile_ReturnsTheSameInstance()
    {
        var path = Write("same.bin", DeterministicPayload.Create(100));
        var cache = Cache();

        var first = Describe(cache, path);
        var second = Describe(cache, path);

        Assert.Same(first, second);
        Assert.Equal(100, cache.CachedBytes);
    }

    [Fact]
    public void Describe_UnchangedLargeFile_ReturnsTheSameInstance()
    {
        var path = Write("large.bin", DeterministicPayload.Create(2048));
        var cache = Cache(maxCachedFileBytes: 1024);

        Assert.Same(Describe(cache, path), Describe(cache, path));
    }

    [Fact]
    public void Describe_FileReplacedWithOtherLength_NewRepresentationWithNewTagAndContent()
    {
        var path = Write("changing.bin", DeterministicPayload.Create(100));
        var cache = Cache();
        var before = Describe(cache, path);
        var newBytes = DeterministicPayload.Create(200, seed: 7);

        Write("changing.bin", newBytes, FirstWrite.AddSeconds(10));
        var after = Describe(cache, path);

        Assert.NotSame(before, after);
        Assert.NotEqual(before.ETagHeader.ToString(), after.ETagHeader.ToString());
        Assert.Equal(200, after.Length);
        Assert.Equal(newBytes, after.Content?.ToArray());
        Assert.Equal(200, cache.CachedBytes);
        Assert.Equal(1, cache.Count);
        Assert.Same(after, cache.TryGetFresh(path));
    }

    [Fact]
    public void Describe_FileRewrittenWithSameLengthAndNewMtime_NewRepresentationWithNewTagAndContent()
    {
        var path = Write("changing.bin", DeterministicPayload.Create(100));
        var cache = Cache();
        var before = Describe(cache, path);
        var newBytes = DeterministicPayload.Create(100, seed: 7);

        Write("changing.bin", newBytes, FirstWrite.AddTicks(1));
        var after = Describe(cache, path);

        Assert.NotEqual(before.ETagHeader.ToString(), after.ETagHeader.ToString());
        Assert.Equal(newBytes, after.Content?.ToArray());
        Assert.Equal(100, cache.CachedBytes);
    }

    [Fact]
    public void Describe_CachedFileReplacedWhenBudgetHoldsOnlyOneVersion_CachesTheNewVersion()
    {
        // The old version's bytes are released when the new one replaces it, so a budget that holds one
        // version is enough: the replaced file must not fall back to disk reads for good.
        var path = Write("replaced.bin", DeterministicPayload.Create(8 * 1024));
        var cache = Cache(maxCachedBytes: 10 * 1024);
        Assert.NotNull(Describe(cache, path).Content);
        var newBytes = DeterministicPayload.Create(8 * 1024, seed: 7);

        Write("replaced.bin", newBytes, FirstWrite.AddSeconds(10));
        var after = Describe(cache, path);

        Assert.Equal(newBytes, after.Content?.ToArray());
        Assert.Equal(8 * 1024, cache.CachedBytes);
    }

    [Fact]
    public void Describe_SecondFileBeyondMaxCachedBytes_IsNotCachedWhole()
    {
        var first = Write("first.bin", DeterministicPayload.Create(8 * 1024));
        var second = Write("second.bin", DeterministicPayload.Create(8 * 1024, seed: 7));
        var cache = Cache(maxCachedBytes: 10 * 1024);

        var firstDescribed = Describe(cache, first);
        var secondDescribed = Describe(cache, second);

        Assert.NotNull(firstDescribed.Content);
        Assert.Null(secondDescribed.Content);
        Assert.Equal(8 * 1024, cache.CachedBytes);
        Assert.NotNull(cache.TryGetFresh(first));
        Assert.Null(cache.TryGetFresh(second));
        Assert.Equal(8 * 1024, secondDescribed.Length);
    }

    [Fact]
    public void Invalidate_CachedFile_ReleasesItsBytesAndForgetsIt()
    {
        var path = Write("gone.bin", DeterministicPayload.Create(4096));
        var cache = Cache();
        Describe(cache, path);

        cache.Invalidate(path);

        Assert.Equal(0, cache.CachedBytes);
        Assert.Equal(0, cache.Count);
        Assert.Null(cache.TryGetFresh(path));
    }

    [Fact]
    public void Invalidate_ThenDescribe_CachesAgainWithinTheBudget()
    {
        var path = Write("again.bin", DeterministicPayload.Create(8 * 1024));
        var cache = Cache(maxCachedBytes: 10 * 1024);
        Describe(cache, path);

        cache.Invalidate(path);
        var again = Describe(cache, path);

        Assert.NotNull(again.Content);
        Assert.Equal(8 * 1024, cache.CachedBytes);
    }

    [Fact]
    public void Invalidate_UnknownPath_ChangesNothing()
    {
        var path = Write("kept.bin", DeterministicPayload.Create(10));
        var cache = Cache();
        Describe(cache, path);

        cache.Invalidate(_dir.Combine("other.bin"));

        Assert.Equal(10, cache.CachedBytes);
        Assert.NotNull(cache.TryGetFresh(path));
    }

    [Fact]
    public void TryGetFresh_RevalidateAfterZero_AlwaysNull()
    {
        var path = Write("small.bin", DeterministicPayload.Create(4096));
        var cache = Cache(revalidateAfter: TimeSpan.Zero);

        var described = Describe(cache, path);

        Assert.NotNull(described.Content);
        Assert.Null(cache.TryGetFresh(path));
        Assert.Same(described, Describe(cache, path));
        Assert.Null(cache.TryGetFresh(path));
    }

    [Fact]
    public void TryGetFresh_NeverDescribed_Null()
    {
        Assert.Null(Cache().TryGetFresh(_dir.Combine("nothing.bin")));
    }

    [Fact]
    public void Describe_MoreFilesThanMaxEntries_KeepsAtMostMaxEntriesAndCountsOnlyHeldBytes()
    {
        var paths = new[]
        {
            Write("a.bin", DeterministicPayload.Create(100)),
            Write("b.bin", DeterministicPayload.Create(200)),
            Write("c.bin", DeterministicPayload.Create(300)),
        };
        var cache = Cache(maxEntries: 2);

        foreach (var path in paths)
        {
            Describe(cache, path);
        }

        Assert.InRange(cache.Count, 1, 2);
        long held = 0;
        foreach (var path in paths)
        {
            held += cache.TryGetFresh(path)?.Length ?? 0;
        }

        Assert.Equal(held, cache.CachedBytes);
        Assert.NotNull(cache.TryGetFresh(paths[2]));
    }

    [Theory]
    [InlineData("data.json", "application/json")]
    [InlineData("page.html", "text/html")]
    [InlineData("payload.bin", "application/octet-stream")]
    [InlineData("mystery.freight-unknown", "application/octet-stream")]
    [InlineData("no-extension", "application/octet-stream")]
    public void Describe_FileExtension_GivesContentType(string name, string contentType)
    {
        var path = Write(name, [1, 2, 3]);

        var described = Describe(Cache(), path);

        Assert.Equal(contentType, described.ContentType);
        Assert.Equal(contentType, described.ContentTypeHeader.ToString());
    }

    [Fact]
    public void Describe_AnyFile_LastModifiedIsTheMtimeTruncatedToWholeSeconds()
    {
        var path = Write("dated.bin", [1]);

        var described = Describe(Cache(), path);

        Assert.Equal(new DateTimeOffset(2026, 3, 4, 5, 6, 7, TimeSpan.Zero), described.LastModified);
        Assert.Equal("Wed, 04 Mar 2026 05:06:07 GMT", described.LastModifiedHeader.ToString());
    }

    [Fact]
    public void Describe_AnyFile_ETagIsAStrongQuotedTagMatchingItsHeader()
    {
        var path = Write("tagged.bin", [1, 2]);

        var described = Describe(Cache(), path);

        Assert.False(described.EntityTag.IsWeak);
        Assert.True(EntityTagHeaderValue.TryParse(described.ETagHeader.ToString(), out var parsed));
        Assert.True(parsed!.Compare(described.EntityTag, useStrongComparison: true));
        Assert.StartsWith("\"", described.ETagHeader.ToString(), StringComparison.Ordinal);
        Assert.EndsWith("\"", described.ETagHeader.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void Constructor_NegativeLimits_Throw()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Cache(maxCachedFileBytes: -1));
        Assert.Throws<ArgumentOutOfRangeException>(() => Cache(maxCachedBytes: -1));
        Assert.Throws<ArgumentOutOfRangeException>(() => Cache(maxEntries: 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => Cache(revalidateAfter: TimeSpan.FromSeconds(-1)));
    }
}
