using System.IO.Hashing;
using System.Text;
using System.Text.Json.Nodes;
using Freight.Hashing;
using Freight.Lab.Payload;
using Freight.Storage;

namespace Freight.Tests.Storage;

/// <summary>
/// What only the file-system store has: the metadata sidecar beside each file, files changed behind the
/// store's back, and its temp files.
/// </summary>
public sealed class FileSystemObjectStoreSidecarTests : IDisposable
{
    private const string MetaSuffix = ".freight-meta";
    private readonly TempDirectory _dir = new();
    private readonly FileSystemObjectStore _store;

    public FileSystemObjectStoreSidecarTests() => _store = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = _dir.Combine("root") });

    public void Dispose() => _dir.Dispose();

    private static string ContentETag(byte[] data) => FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(data));

    private static string SidecarPath(string dataPath) => Path.Combine(Path.GetDirectoryName(dataPath)!, "." + Path.GetFileName(dataPath) + MetaSuffix);

    /// <summary>Every file under the store's root, relative, sorted.</summary>
    private List<string> RootFiles() =>
        _dir.RelativeFiles().Where(f => f.StartsWith("root/", StringComparison.Ordinal)).Select(f => f["root/".Length..]).ToList();

    private async Task<ObjectInfo> PutWithMetadataAsync(string key, byte[] data, string etag)
    {
        await using var writer = await _store.BeginWriteAsync(key, data.Length);
        await writer.WriteAsync(data.AsMemory());
        return await writer.CommitAsync(new ObjectCommit
        {
            ETag = etag,
            ContentType = "application/x-committed",
            Digests = new Dictionary<string, byte[]> { ["sha-256"] = [1, 2, 3] },
        });
    }

    private async Task PutPlainAsync(string key, byte[] data)
    {
        await using var writer = await _store.BeginWriteAsync(key, data.Length);
        await writer.WriteAsync(data.AsMemory());
        await writer.CommitAsync();
    }

    /// <summary>Asserts the store describes <paramref name="key"/> by its bytes now, nothing of the sidecar it had.</summary>
    private async Task AssertDerivedFromAsync(string key, byte[] content)
    {
        var info = await _store.GetInfoAsync(key);
        Assert.NotNull(info);
        Assert.Equal(ContentETag(content), info.ETag);
        Assert.Equal(content.Length, info.Length);
        Assert.Null(info.ContentType);
        Assert.Empty(info.Digests);
    }

    // ---- The sidecar --------------------------------------------------------------------------------------

    [Fact]
    public async Task Commit_WithMetadata_WritesOneHiddenSidecarBesideTheFile()
    {
        await PutWithMetadataAsync("a/c.bin", [1, 2, 3], ContentETag([1, 2, 3]));

        Assert.Equal(["a/.c.bin" + MetaSuffix, "a/c.bin"], RootFiles());
    }

    [Fact]
    public async Task Delete_ObjectWithSidecar_RemovesBoth()
    {
        await PutWithMetadataAsync("a/c.bin", [1, 2, 3], ContentETag([1, 2, 3]));

        Assert.True(await _store.DeleteAsync("a/c.bin"));

        Assert.Empty(RootFiles());
    }

    [Fact]
    public async Task GetInfo_DataFileRewrittenByHand_DerivesETagFromNewContent()
    {
        var committed = await PutWithMetadataAsync("hand.bin", DeterministicPayload.Create(1000, seed: 1), FileSystemObjectStore.FormatETag(42));
        var replacement = DeterministicPayload.Create(1500, seed: 2);

        await File.WriteAllBytesAsync(_store.GetPath("hand.bin"), replacement);

        await AssertDerivedFromAsync("hand.bin", replacement);
        Assert.NotEqual(committed.ETag, ContentETag(replacement));
    }

    [Fact]
    public async Task GetInfo_DataFileRewrittenByHandSameLengthRightAfterCommit_DerivesETagFromNewContent()
    {
        // Same length, within the file system clock's granularity of the commit: only the time can tell.
        for (var round = 0; round < 50; round++)
        {
            var key = $"same/{round}.bin";
            await PutWithMetadataAsync(key, DeterministicPayload.Create(4096, seed: 1), ContentETag(DeterministicPayload.Create(4096, seed: 1)));
            var replacement = DeterministicPayload.Create(4096, seed: (ulong)round + 2);

            await File.WriteAllBytesAsync(_store.GetPath(key), replacement);

            await AssertDerivedFromAsync(key, replacement);
        }
    }

    [Fact]
    public async Task GetInfo_DataFileReplacedByRenameSameLengthRightAfterCommit_DerivesETagFromNewContent()
    {
        // How editors and rsync replace a file: write a new one, rename it over the old (a new inode).
        var scratch = _dir.Combine("scratch.bin");
        for (var round = 0; round < 50; round++)
        {
            var key = $"renamed/{round}.bin";
            var original = DeterministicPayload.Create(4096, seed: 1);
            await PutWithMetadataAsync(key, original, ContentETag(original));
            var replacement = DeterministicPayload.Create(4096, seed: (ulong)round + 2);

            await File.WriteAllBytesAsync(scratch, replacement);
            File.Move(scratch, _store.GetPath(key), overwrite: true);

            await AssertDerivedFromAsync(key, replacement);
        }
    }

    [Fact]
    public async Task GetInfo_StaleSidecar_StoresTheDerivedETag()
    {
        var original = DeterministicPayload.Create(1000, seed: 1);
        await PutWithMetadataAsync("stale.bin", original, ContentETag(original));
        var replacement = DeterministicPayload.Create(999, seed: 2);
        await File.WriteAllBytesAsync(_store.GetPath("stale.bin"), replacement);

        var first = await _store.GetInfoAsync("stale.bin");

        Assert.Equal(ContentETag(replacement), first?.ETag);
        var sidecar = await File.ReadAllTextAsync(SidecarPath(_store.GetPath("stale.bin")));
        Assert.Contains(HashHex.ToHex(XxHash128.HashToUInt128(replacement)), sidecar, StringComparison.Ordinal);
        Assert.DoesNotContain(HashHex.ToHex(XxHash128.HashToUInt128(original)), sidecar, StringComparison.Ordinal);
        Assert.Equal(first?.ETag, (await _store.GetInfoAsync("stale.bin"))?.ETag);
    }

    /// <summary>Rewrites the sidecar of <paramref name="key"/> through <paramref name="edit"/> (its JSON), as a crash or an older Freight would have left it.</summary>
    private async Task EditSidecarAsync(string key, Action<JsonObject> edit)
    {
        var path = SidecarPath(_store.GetPath(key));
        var sidecar = JsonNode.Parse(await File.ReadAllTextAsync(path))!.AsObject();
        edit(sidecar);
        await File.WriteAllTextAsync(path, sidecar.ToJsonString());
    }

    [Fact]
    public async Task GetInfo_SidecarOfAnotherInodeWithTheSameLengthAndTime_DerivesFromTheBytes()
    {
        // What a kill between the sidecar's rename and the data's leaves: the next version's sidecar (its temp
        // file's inode, its ETag) beside the old data, which a same-length write in the same clock tick matches.
        var data = DeterministicPayload.Create(4096, seed: 1);
        await PutWithMetadataAsync("crashed.bin", data, ContentETag(data));

        await EditSidecarAsync("crashed.bin", sidecar =>
        {
            sidecar["inode"] = (sidecar["inode"]?.GetValue<ulong>() ?? 0) + 1;
            sidecar["eTag"] = ContentETag(DeterministicPayload.Create(4096, seed: 2));
            sidecar["contentType"] = "application/x-next";
        });

        await AssertDerivedFromAsync("crashed.bin", data);
    }

    [Fact]
    public async Task GetInfo_SidecarWithoutInodeForTheseBytes_KeepsItsMetadataAndNamesTheVersion()
    {
        // A sidecar an older Freight wrote (no inode): its content type and digests were kept for these very bytes.
        var data = DeterministicPayload.Create(3000, seed: 3);
        await PutWithMetadataAsync("older.bin", data, ContentETag(data));
        await EditSidecarAsync("older.bin", sidecar => sidecar.Remove("inode"));

        var info = await _store.GetInfoAsync("older.bin");

        Assert.Equal(ContentETag(data), info?.ETag);
        Assert.Equal("application/x-committed", info?.ContentType);
        Assert.Equal([1, 2, 3], info?.Digests["sha-256"]);
        var rewritten = JsonNode.Parse(await File.ReadAllTextAsync(SidecarPath(_store.GetPath("older.bin"))))!.AsObject();
        Assert.NotNull(rewritten["inode"]);
    }

    [Fact]
    public async Task GetInfo_SidecarWithoutInodeForOtherBytes_DerivesFromTheBytes()
    {
        // Same length and time, another version's ETag: a sidecar without an inode proves nothing by itself.
        var data = DeterministicPayload.Create(3000, seed: 4);
        await PutWithMetadataAsync("other.bin", data, ContentETag(data));
        await EditSidecarAsync("other.bin", sidecar =>
        {
            sidecar.Remove("inode");
            sidecar["eTag"] = ContentETag(DeterministicPayload.Create(3000, seed: 5));
        });

        await AssertDerivedFromAsync("other.bin", data);
    }

    [Theory]
    [InlineData("")]
    [InlineData("not json")]
    [InlineData("{")]
    [InlineData("null")]
    [InlineData("[1, 2]")]
    [InlineData("42")]
    [InlineData("{\"length\": \"many\"}")]
    [InlineData("{\"length\": 3}")]
    public async Task GetInfo_GarbageSidecar_IgnoredAndETagDerived(string garbage)
    {
        var data = DeterministicPayload.Create(3000);
        await PutWithMetadataAsync("g/junk.bin", data, FileSystemObjectStore.FormatETag(7));

        await File.WriteAllTextAsync(SidecarPath(_store.GetPath("g/junk.bin")), garbage);

        await AssertDerivedFromAsync("g/junk.bin", data);
        Assert.Equal(["g/junk.bin"], (await _store.ListAsync("", 10)).Objects.Select(o => o.Key));
    }

    [Fact]
    public async Task GetInfo_BinarySidecar_IgnoredAndETagDerived()
    {
        var data = DeterministicPayload.Create(3000);
        await PutWithMetadataAsync("junk.bin", data, FileSystemObjectStore.FormatETag(7));

        await File.WriteAllBytesAsync(SidecarPath(_store.GetPath("junk.bin")), [0xFF, 0xFE, 0x00, 0x7B, 0xC3]);

        await AssertDerivedFromAsync("junk.bin", data);
    }

    [Fact]
    public async Task GetInfo_SidecarWithoutDataFile_NullAndNotListed()
    {
        await PutWithMetadataAsync("orphan.bin", [1, 2], ContentETag([1, 2]));
        File.Delete(_store.GetPath("orphan.bin"));

        Assert.Null(await _store.GetInfoAsync("orphan.bin"));
        Assert.Empty((await _store.ListAsync("", 10)).Objects);
    }

    // ---- Listing and temp files -------------------------------------------------------------------------

    [Fact]
    public async Task List_BesideSidecarsAndTempFiles_ShowsOnlyObjects()
    {
        await PutWithMetadataAsync("a/one.bin", [1], ContentETag([1]));
        await PutPlainAsync("a/b/two.bin", [2]);
        Assert.NotNull(await _store.GetInfoAsync("a/b/two.bin")); // derives and stores a sidecar
        await PutWithMetadataAsync("three.bin", [3], ContentETag([3]));
        await using var pending = await _store.BeginWriteAsync("a/pending.bin");
        await pending.WriteAsync(new byte[] { 4 }.AsMemory());
        await File.WriteAllBytesAsync(Path.Combine(_store.RootDirectory, "a", "b", $".0123456789abcdef0123456789abcdef{FileSystemObjectStore.TempSuffix}"), [5]);

        var files = RootFiles();
        Assert.Equal(3, files.Count(f => f.EndsWith(MetaSuffix, StringComparison.Ordinal)));
        Assert.Equal(2, files.Count(f => f.EndsWith(FileSystemObjectStore.TempSuffix, StringComparison.Ordinal)));

        Assert.Equal(["a/b/two.bin", "a/one.bin", "three.bin"], (await _store.ListAsync("", 100)).Objects.Select(o => o.Key));
        Assert.Equal(["a/b/two.bin", "a/one.bin"], (await _store.ListAsync("a/", 100)).Objects.Select(o => o.Key));
        var paged = new List<string>();
        string? cursor = null;
        do
        {
            var page = await _store.ListAsync("", 1, cursor);
            paged.AddRange(page.Objects.Select(o => o.Key));
            cursor = page.NextCursor;
        }
        while (cursor is not null);

        Assert.Equal(["a/b/two.bin", "a/one.bin", "three.bin"], paged);
    }

    [Fact]
    public async Task DeleteAbandonedTempFiles_BesideSidecars_RemovesOnlyTempFiles()
    {
        await PutWithMetadataAsync("a/b/c.bin", [1, 2, 3], ContentETag([1, 2, 3]));
        await PutWithMetadataAsync("top.bin", [4], ContentETag([4]));
        var crashed = await _store.BeginWriteAsync("a/crashed.bin");
        await crashed.WriteAsync(new byte[] { 9 }.AsMemory());
        await File.WriteAllBytesAsync(Path.Combine(_store.RootDirectory, $".ffffffffffffffffffffffffffffffff{FileSystemObjectStore.TempSuffix}"), [9]);

        Assert.Equal(2, _store.DeleteAbandonedTempFiles());

        Assert.Equal([".top.bin" + MetaSuffix, "a/b/.c.bin" + MetaSuffix, "a/b/c.bin", "top.bin"], RootFiles());
        // The sidecars still describe their files: the committed metadata is served, not derived.
        Assert.Equal("application/x-committed", (await _store.GetInfoAsync("a/b/c.bin"))?.ContentType);
        Assert.Equal("application/x-committed", (await _store.GetInfoAsync("top.bin"))?.ContentType);
        await crashed.DisposeAsync();
    }
}
