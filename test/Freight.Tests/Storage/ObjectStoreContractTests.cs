using System.IO.Hashing;
using Freight.Lab.Payload;
using Freight.Storage;

namespace Freight.Tests.Storage;

/// <summary>
/// The behaviour every <see cref="IObjectStore"/> promises, run once per store by a subclass that says how
/// to make an empty one. Only the interface is used here: nothing about files, memory or buckets.
/// </summary>
public abstract class ObjectStoreContractTests
{
    private const string TextPlain = "text/plain; charset=utf-8";

    /// <summary>A new, empty store for one test.</summary>
    protected abstract IObjectStore CreateStore();

    /// <summary>
    /// A store that keeps no old versions (S3 without versioning) fails a reader whose object was replaced
    /// (<see cref="IOException"/>) instead of serving the old bytes; reads that succeed must still be consistent.
    /// </summary>
    protected virtual bool ReplacedReadersFail => false;

    // ---- Commit and read back -------------------------------------------------------------------------

    [Fact]
    public async Task Commit_WithMetadata_GetInfoReturnsItWithLengthAndTime()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(100_003);
        // Not the content hash: the store must keep the ETag it is given, not derive its own.
        var etag = OtherETag(1);
        var digests = new Dictionary<string, byte[]> { ["sha-256"] = [1, 2, 3], ["crc32c"] = [4, 5, 6, 7] };
        var before = DateTimeOffset.UtcNow;

        var committed = await PutAsync(store, "meta.bin", data, new ObjectCommit { ETag = etag, ContentType = TextPlain, Digests = digests });
        var after = DateTimeOffset.UtcNow;
        var info = await store.GetInfoAsync("meta.bin");

        Assert.NotNull(info);
        Assert.Equal("meta.bin", info.Key);
        Assert.Equal(data.Length, info.Length);
        Assert.Equal(etag, info.ETag);
        Assert.Equal(TextPlain, info.ContentType);
        AssertDigests(digests, info.Digests);
        AssertRecent(info.LastModified, before, after);
        AssertSameInfo(committed, info);
    }

    [Fact]
    public async Task Commit_WithoutMetadata_ETagIsStrongContentHash()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(70_000, seed: 3);
        var before = DateTimeOffset.UtcNow;

        await using (var writer = await store.BeginWriteAsync("plain.bin"))
        {
            await writer.WriteAsync(data.AsMemory());
            await writer.CommitAsync();
        }

        var after = DateTimeOffset.UtcNow;
        var info = await store.GetInfoAsync("plain.bin");

        Assert.NotNull(info);
        Assert.Equal(ContentETag(data), info.ETag);
        Assert.Equal(data.Length, info.Length);
        Assert.Null(info.ContentType);
        Assert.Empty(info.Digests);
        AssertRecent(info.LastModified, before, after);
        // Derived once and kept: asking again gives the same tag.
        Assert.Equal(info.ETag, (await store.GetInfoAsync("plain.bin"))?.ETag);
    }

    [Fact]
    public async Task Commit_ContentTypeAndDigestsWithoutETag_KeepsThemAndDerivesETag()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(5_000, seed: 4);
        var digests = new Dictionary<string, byte[]> { ["sha-256"] = [9, 8, 7] };

        var committed = await PutAsync(store, "typed.bin", data, new ObjectCommit { ContentType = TextPlain, Digests = digests });
        var info = await store.GetInfoAsync("typed.bin");

        Assert.NotNull(info);
        Assert.Equal(ContentETag(data), info.ETag);
        Assert.Equal(TextPlain, info.ContentType);
        AssertDigests(digests, info.Digests);
        AssertSameInfo(committed, info);
    }

    [Fact]
    public async Task OpenRead_AtOffsets_ReturnsExactBytes()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(300_001, seed: 5);
        await PutAsync(store, "ranges.bin", data, WithContentETag(data));

        await using var reader = await store.OpenReadAsync("ranges.bin");

        Assert.NotNull(reader);
        Assert.Equal(data.Length, reader.Info.Length);
        Assert.Equal(ContentETag(data), reader.Info.ETag);
        foreach (var (offset, count) in new[] { (0, 1), (0, 4096), (1, 7), (65_535, 65_538), (150_000, 100_000), (300_000, 1) })
        {
            var buffer = new byte[count];
            Assert.Equal(count, await ReadAtAsync(reader, offset, buffer));
            Assert.Equal(data.AsSpan(offset, count).ToArray(), buffer);
        }

        // Asking past the end gives what is there, then nothing.
        var tail = new byte[100];
        Assert.Equal(11, await ReadAtAsync(reader, data.Length - 11, tail));
        Assert.Equal(data.AsSpan(data.Length - 11).ToArray(), tail.AsSpan(0, 11).ToArray());
        Assert.Equal(0, await reader.ReadAsync(data.Length, new byte[10]));
        Assert.Equal(0, await reader.ReadAsync(data.Length + 1000L, new byte[10]));
    }

    [Fact]
    public virtual async Task OpenRead_Committed_ExposesFileHandleOrContentWithTheBytes()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(12_345, seed: 6);
        await PutAsync(store, "direct.bin", data);

        await using var reader = await store.OpenReadAsync("direct.bin");

        Assert.NotNull(reader);
        Assert.True(reader.FileHandle is not null || reader.Content is not null, "The reader offers neither a file handle nor the content.");
        if (reader.FileHandle is { } handle)
        {
            Assert.False(handle.IsInvalid);
            Assert.Equal(data.Length, RandomAccess.GetLength(handle));
            var fromHandle = new byte[data.Length];
            Assert.Equal(data.Length, RandomAccess.Read(handle, fromHandle, 0));
            Assert.Equal(data, fromHandle);
        }

        if (reader.Content is { } content)
        {
            Assert.Equal(data, content.ToArray());
        }
    }

    [Fact]
    public async Task GetInfoAndOpenRead_MissingKey_ReturnNull()
    {
        var store = CreateStore();
        await PutAsync(store, "present.bin", [1]);

        Assert.Null(await store.GetInfoAsync("absent.bin"));
        Assert.Null(await store.OpenReadAsync("absent.bin"));
        Assert.Null(await store.GetInfoAsync("dir/absent.bin"));
    }

    [Fact]
    public async Task Commit_Twice_SecondThrowsAndFirstStays()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(10, seed: 7);

        await using var writer = await store.BeginWriteAsync("once.bin");
        await writer.WriteAsync(data.AsMemory());
        await writer.CommitAsync(WithContentETag(data));

        await Assert.ThrowsAnyAsync<InvalidOperationException>(async () => await writer.CommitAsync(new ObjectCommit { ETag = OtherETag(7) }));
        Assert.Equal(ContentETag(data), (await store.GetInfoAsync("once.bin"))?.ETag);
    }

    // ---- Abort and visibility ---------------------------------------------------------------------------

    [Fact]
    public async Task Write_BeforeCommit_IsNotVisible()
    {
        var store = CreateStore();

        await using var writer = await store.BeginWriteAsync("pending/obj.bin", expectedLength: 4096);
        await writer.WriteAsync(DeterministicPayload.Create(1000).AsMemory());

        Assert.Null(await store.GetInfoAsync("pending/obj.bin"));
        Assert.Null(await store.OpenReadAsync("pending/obj.bin"));
        Assert.Empty((await store.ListAsync("", 100)).Objects);
    }

    [Fact]
    public async Task Dispose_WithoutCommitOnNewKey_LeavesNothing()
    {
        var store = CreateStore();

        await using (var writer = await store.BeginWriteAsync("dir/aborted.bin", expectedLength: 3))
        {
            await writer.WriteAsync(new byte[] { 1, 2, 3 }.AsMemory());
        }

        Assert.Null(await store.GetInfoAsync("dir/aborted.bin"));
        Assert.Null(await store.OpenReadAsync("dir/aborted.bin"));
        var page = await store.ListAsync("", 100);
        Assert.Empty(page.Objects);
        Assert.Null(page.NextCursor);
    }

    [Fact]
    public async Task Dispose_WithoutCommitOnExistingKey_KeepsPreviousVersion()
    {
        var store = CreateStore();
        var previous = DeterministicPayload.Create(5000, seed: 1);
        var committed = await PutAsync(store, "keep.bin", previous, new ObjectCommit { ETag = ContentETag(previous), ContentType = TextPlain });

        await using (var writer = await store.BeginWriteAsync("keep.bin", expectedLength: 9000))
        {
            await writer.WriteAsync(DeterministicPayload.Create(8000, seed: 2).AsMemory());
        }

        var info = await store.GetInfoAsync("keep.bin");
        Assert.NotNull(info);
        AssertSameInfo(committed, info);
        Assert.Equal(previous, await ReadAllAsync(store, "keep.bin"));
        Assert.Equal(["keep.bin"], await ListKeysAsync(store, "", 100));
    }

    // ---- Replace ----------------------------------------------------------------------------------------

    [Fact]
    public virtual async Task Replace_ReaderOpenedBefore_KeepsOldBytesAndInfo()
    {
        var store = CreateStore();
        var oldData = DeterministicPayload.Create(200_000, seed: 1);
        var newData = DeterministicPayload.Create(50_000, seed: 2);
        await PutAsync(store, "doc.bin", oldData, new ObjectCommit { ETag = ContentETag(oldData), ContentType = "application/x-old" });
        await using var oldReader = await store.OpenReadAsync("doc.bin");
        Assert.NotNull(oldReader);
        var firstChunk = new byte[1000];
        Assert.Equal(1000, await ReadAtAsync(oldReader, 0, firstChunk));

        await PutAsync(store, "doc.bin", newData, new ObjectCommit { ETag = ContentETag(newData), ContentType = "application/x-new" });

        Assert.Equal(oldData.AsSpan(0, 1000).ToArray(), firstChunk);
        Assert.Equal(oldData, await ReadAllAsync(oldReader));
        Assert.Equal(ContentETag(oldData), oldReader.Info.ETag);
        Assert.Equal(oldData.Length, oldReader.Info.Length);
        Assert.Equal("application/x-old", oldReader.Info.ContentType);

        await using var newReader = await store.OpenReadAsync("doc.bin");
        Assert.NotNull(newReader);
        Assert.Equal(newData, await ReadAllAsync(newReader));
        Assert.Equal(ContentETag(newData), newReader.Info.ETag);
        Assert.Equal(newData.Length, newReader.Info.Length);
        Assert.Equal("application/x-new", newReader.Info.ContentType);
    }

    [Fact]
    public async Task Replace_PlainCommitOverMetadata_DropsOldMetadata()
    {
        var store = CreateStore();
        var oldData = DeterministicPayload.Create(100, seed: 1);
        var newData = DeterministicPayload.Create(100, seed: 2);
        await PutAsync(store, "swap.bin", oldData, new ObjectCommit { ETag = ContentETag(oldData), ContentType = TextPlain, Digests = new Dictionary<string, byte[]> { ["sha-256"] = [1] } });

        await PutAsync(store, "swap.bin", newData);

        var info = await store.GetInfoAsync("swap.bin");
        Assert.NotNull(info);
        Assert.Equal(ContentETag(newData), info.ETag);
        Assert.Null(info.ContentType);
        Assert.Empty(info.Digests);
        Assert.Equal(newData, await ReadAllAsync(store, "swap.bin"));
    }

    [Fact]
    public async Task OpenRead_DuringReplacingCommits_ETagAlwaysBelongsToTheBytesRead()
    {
        // Versions of one length written back to back: a store that tells versions apart by length and
        // modification time alone cannot tell these apart.
        var store = CreateStore();

        var reads = await ReadWhileCommittingAsync(store, "hot.bin", versions: 100);

        Assert.True(reads.Total > 0, "No read overlapped the commits.");
        Assert.True(reads.WrongETag.IsEmpty, $"{reads.WrongETag.Count} of {reads.Total} reads had another version's ETag, e.g. {string.Join("; ", reads.WrongETag.Take(3))}");
    }

    [Fact]
    public async Task OpenRead_DuringReplacingCommits_InfoCarriesTheCommittedMetadata()
    {
        var store = CreateStore();

        var reads = await ReadWhileCommittingAsync(store, "hot.bin", versions: 100);

        Assert.True(reads.Total > 0, "No read overlapped the commits.");
        Assert.True(reads.MissingMetadata.IsEmpty, $"{reads.MissingMetadata.Count} of {reads.Total} reads lacked their version's content type or digests, e.g. {string.Join("; ", reads.MissingMetadata.Take(3))}");
    }

    [Fact]
    public async Task Commit_WhileReadersOpenTheKey_CommittedMetadataSurvives()
    {
        var store = CreateStore();
        var lost = new List<string>();

        for (var round = 0; round < 20; round++)
        {
            var key = $"hot/{round}.bin";
            await ReadWhileCommittingAsync(store, key, versions: 5);

            // Readers gone, the last commit done: the store must describe it as it was committed.
            var info = await store.GetInfoAsync(key);
            Assert.NotNull(info);
            Assert.Equal(ContentETag(VersionPayload(4, 4096)), info.ETag);
            if (info.ContentType != VersionType(4) || !info.Digests.ContainsKey("sha-256"))
            {
                lost.Add($"{key}: type {info.ContentType ?? "null"}, {info.Digests.Count} digests");
            }
        }

        Assert.True(lost.Count == 0, $"{lost.Count} of 20 keys lost their committed metadata for good: {string.Join("; ", lost.Take(3))}");
    }

    // ---- Conditions: IfNoneExists -----------------------------------------------------------------------

    [Fact]
    public async Task IfNoneExists_NewKey_Commits()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(1000, seed: 1);

        var info = await PutAsync(store, "new.bin", data, new ObjectCommit { ETag = ContentETag(data), Condition = new WriteCondition { IfNoneExists = true } });

        Assert.Equal(ContentETag(data), info.ETag);
        Assert.Equal(data, await ReadAllAsync(store, "new.bin"));
    }

    [Fact]
    public async Task IfNoneExists_ExistingKey_ThrowsAndKeepsFirstVersion()
    {
        var store = CreateStore();
        var first = DeterministicPayload.Create(1000, seed: 1);
        var second = DeterministicPayload.Create(2000, seed: 2);
        var ifNoneExists = new WriteCondition { IfNoneExists = true };
        await PutAsync(store, "once.bin", first, new ObjectCommit { ETag = ContentETag(first), Condition = ifNoneExists });

        await Assert.ThrowsAsync<PreconditionFailedException>(
            () => PutAsync(store, "once.bin", second, new ObjectCommit { ETag = ContentETag(second), Condition = ifNoneExists }));

        Assert.Equal(first, await ReadAllAsync(store, "once.bin"));
        Assert.Equal(ContentETag(first), (await store.GetInfoAsync("once.bin"))?.ETag);
        Assert.Equal(["once.bin"], await ListKeysAsync(store, "", 100));
    }

    [Fact]
    public async Task IfNoneExists_TwentyConcurrentWritersToNewKey_ExactlyOneWins()
    {
        var store = CreateStore();
        var payloads = Enumerable.Range(0, 20).Select(i => DeterministicPayload.Create(32 * 1024 + i, seed: (ulong)i + 1)).ToArray();
        using var start = new SemaphoreSlim(0);

        var attempts = payloads.Select((data, i) => Task.Run(async () =>
        {
            await using var writer = await store.BeginWriteAsync("race/once.bin", data.Length);
            await start.WaitAsync();
            await writer.WriteAsync(data.AsMemory());
            try
            {
                await writer.CommitAsync(new ObjectCommit { ETag = ContentETag(data), ContentType = VersionType(i), Condition = new WriteCondition { IfNoneExists = true } });
                return true;
            }
            catch (PreconditionFailedException)
            {
                return false;
            }
        })).ToArray();
        start.Release(payloads.Length);
        var won = await Task.WhenAll(attempts);

        var winner = Assert.Single(Enumerable.Range(0, won.Length), i => won[i]);
        Assert.Equal(payloads[winner], await ReadAllAsync(store, "race/once.bin"));
        var info = await store.GetInfoAsync("race/once.bin");
        Assert.NotNull(info);
        Assert.Equal(ContentETag(payloads[winner]), info.ETag);
        Assert.Equal(payloads[winner].Length, info.Length);
        Assert.Equal(VersionType(winner), info.ContentType);
        Assert.Equal(["race/once.bin"], await ListKeysAsync(store, "", 100));
    }

    [Fact]
    public async Task Commit_TwentyConcurrentUnconditionalWriters_FinalObjectIsOneWritersWhole()
    {
        var store = CreateStore();
        // Two lengths only, so some writers share a length; half commit metadata, half leave it to the store.
        var payloads = Enumerable.Range(0, 20).Select(i => DeterministicPayload.Create(64 * 1024 + (i % 2), seed: (ulong)i + 100)).ToArray();
        using var start = new SemaphoreSlim(0);

        var writers = payloads.Select((data, i) => Task.Run(async () =>
        {
            await using var writer = await store.BeginWriteAsync("race/last.bin", data.Length);
            await start.WaitAsync();
            for (var offset = 0; offset < data.Length; offset += 8192)
            {
                await writer.WriteAsync(data.AsMemory(offset, Math.Min(8192, data.Length - offset)));
            }

            if (i % 2 == 0)
            {
                await writer.CommitAsync(new ObjectCommit { ETag = ContentETag(data), ContentType = VersionType(i) });
            }
            else
            {
                await writer.CommitAsync();
            }
        })).ToArray();
        start.Release(payloads.Length);
        await Task.WhenAll(writers);

        var final = await ReadAllAsync(store, "race/last.bin");
        var owner = Array.FindIndex(payloads, p => p.AsSpan().SequenceEqual(final));
        Assert.True(owner >= 0, $"The object ({final.Length} bytes) is no writer's payload whole.");
        var info = await store.GetInfoAsync("race/last.bin");
        Assert.NotNull(info);
        Assert.Equal(ContentETag(final), info.ETag);
        Assert.Equal(final.Length, info.Length);
        Assert.Equal(owner % 2 == 0 ? VersionType(owner) : null, info.ContentType);
        Assert.Equal(["race/last.bin"], await ListKeysAsync(store, "", 100));
    }

    // ---- Conditions: IfMatch ----------------------------------------------------------------------------

    [Fact]
    public async Task IfMatch_CurrentETag_Commits()
    {
        var store = CreateStore();
        var first = DeterministicPayload.Create(100, seed: 1);
        var second = DeterministicPayload.Create(200, seed: 2);
        var current = await PutAsync(store, "m.bin", first);

        await PutAsync(store, "m.bin", second, new ObjectCommit { ETag = ContentETag(second), Condition = new WriteCondition { IfMatch = [current.ETag] } });

        Assert.Equal(second, await ReadAllAsync(store, "m.bin"));
        Assert.Equal(ContentETag(second), (await store.GetInfoAsync("m.bin"))?.ETag);
    }

    [Fact]
    public async Task IfMatch_ListContainingCurrentETag_Commits()
    {
        var store = CreateStore();
        var first = DeterministicPayload.Create(100, seed: 1);
        var second = DeterministicPayload.Create(200, seed: 2);
        await PutAsync(store, "m.bin", first, WithContentETag(first));

        await PutAsync(store, "m.bin", second, new ObjectCommit { Condition = new WriteCondition { IfMatch = [OtherETag(1), ContentETag(first)] } });

        Assert.Equal(second, await ReadAllAsync(store, "m.bin"));
    }

    [Fact]
    public async Task IfMatch_OtherETag_ThrowsAndKeepsObject()
    {
        var store = CreateStore();
        var first = DeterministicPayload.Create(100, seed: 1);
        var committed = await PutAsync(store, "m.bin", first, new ObjectCommit { ETag = ContentETag(first), ContentType = TextPlain });

        await Assert.ThrowsAsync<PreconditionFailedException>(
            () => PutAsync(store, "m.bin", DeterministicPayload.Create(200, seed: 2), new ObjectCommit { Condition = new WriteCondition { IfMatch = [OtherETag(1), OtherETag(2)] } }));

        Assert.Equal(first, await ReadAllAsync(store, "m.bin"));
        var info = await store.GetInfoAsync("m.bin");
        Assert.NotNull(info);
        AssertSameInfo(committed, info);
        Assert.Equal(["m.bin"], await ListKeysAsync(store, "", 100));
    }

    [Fact]
    public async Task IfMatch_WeakFormOfCurrentETag_Throws()
    {
        // Strong comparison (RFC 9110 §13.1.1): W/"x" never matches "x".
        var store = CreateStore();
        var first = DeterministicPayload.Create(100, seed: 1);
        await PutAsync(store, "m.bin", first, WithContentETag(first));

        await Assert.ThrowsAsync<PreconditionFailedException>(
            () => PutAsync(store, "m.bin", [1, 2], new ObjectCommit { Condition = new WriteCondition { IfMatch = ["W/" + ContentETag(first)] } }));

        Assert.Equal(first, await ReadAllAsync(store, "m.bin"));
    }

    [Fact]
    public async Task IfMatch_MissingKey_ThrowsAndCreatesNothing()
    {
        var store = CreateStore();

        await Assert.ThrowsAsync<PreconditionFailedException>(
            () => PutAsync(store, "none.bin", [1, 2, 3], new ObjectCommit { Condition = new WriteCondition { IfMatch = [OtherETag(1)] } }));

        Assert.Null(await store.GetInfoAsync("none.bin"));
        Assert.Empty((await store.ListAsync("", 100)).Objects);
    }

    [Fact]
    public async Task IfMatchAny_ExistingKey_Commits()
    {
        var store = CreateStore();
        await PutAsync(store, "any.bin", [1]);
        var second = DeterministicPayload.Create(300, seed: 9);

        await PutAsync(store, "any.bin", second, new ObjectCommit { Condition = new WriteCondition { IfMatch = ["*"] } });

        Assert.Equal(second, await ReadAllAsync(store, "any.bin"));
        Assert.Equal(ContentETag(second), (await store.GetInfoAsync("any.bin"))?.ETag);
    }

    [Fact]
    public async Task IfMatchAny_MissingKey_ThrowsAndCreatesNothing()
    {
        var store = CreateStore();

        await Assert.ThrowsAsync<PreconditionFailedException>(
            () => PutAsync(store, "none.bin", [1], new ObjectCommit { Condition = new WriteCondition { IfMatch = ["*"] } }));

        Assert.Null(await store.GetInfoAsync("none.bin"));
    }

    // ---- Delete -----------------------------------------------------------------------------------------

    [Fact]
    public async Task Delete_MissingKey_ReturnsFalse()
    {
        var store = CreateStore();
        await PutAsync(store, "other.bin", [1]);

        Assert.False(await store.DeleteAsync("missing.bin"));
        Assert.False(await store.DeleteAsync("missing.bin", new WriteCondition { IfMatch = ["*"] }));
        Assert.NotNull(await store.GetInfoAsync("other.bin"));
    }

    [Fact]
    public async Task Delete_ExistingKey_ReturnsTrueAndRemovesIt()
    {
        var store = CreateStore();
        await PutAsync(store, "gone.bin", DeterministicPayload.Create(1000), new ObjectCommit { ContentType = TextPlain, ETag = OtherETag(3) });
        await PutAsync(store, "stays.bin", [1]);

        Assert.True(await store.DeleteAsync("gone.bin"));

        Assert.Null(await store.GetInfoAsync("gone.bin"));
        Assert.Null(await store.OpenReadAsync("gone.bin"));
        Assert.Equal(["stays.bin"], await ListKeysAsync(store, "", 100));
        Assert.False(await store.DeleteAsync("gone.bin"));
    }

    [Fact]
    public async Task Delete_ThenCommitPlain_HasNoneOfTheOldMetadata()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(100);
        await PutAsync(store, "re.bin", data, new ObjectCommit { ETag = OtherETag(4), ContentType = TextPlain });
        Assert.True(await store.DeleteAsync("re.bin"));

        await PutAsync(store, "re.bin", data);

        var info = await store.GetInfoAsync("re.bin");
        Assert.NotNull(info);
        Assert.Equal(ContentETag(data), info.ETag);
        Assert.Null(info.ContentType);
    }

    [Fact]
    public async Task Delete_WrongETag_ThrowsAndKeepsObject()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(1000);
        await PutAsync(store, "kept.bin", data, WithContentETag(data));

        await Assert.ThrowsAsync<PreconditionFailedException>(async () => await store.DeleteAsync("kept.bin", new WriteCondition { IfMatch = [OtherETag(1)] }));

        Assert.Equal(data, await ReadAllAsync(store, "kept.bin"));
        Assert.Equal(ContentETag(data), (await store.GetInfoAsync("kept.bin"))?.ETag);
    }

    [Fact]
    public async Task Delete_CurrentETag_Deletes()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(1000);
        await PutAsync(store, "del.bin", data);

        Assert.True(await store.DeleteAsync("del.bin", new WriteCondition { IfMatch = [ContentETag(data)] }));

        Assert.Null(await store.GetInfoAsync("del.bin"));
    }

    // ---- List -------------------------------------------------------------------------------------------

    [Fact]
    public async Task List_Prefix_MatchesLeadingCharactersOnly()
    {
        var store = CreateStore();
        foreach (var key in new[] { "a/x.bin", "a/y/z.bin", "ab", "abc/d.bin", "b/a/x.bin", "xa/b" })
        {
            await PutAsync(store, key, [1]);
        }

        Assert.Equal(["a/x.bin", "a/y/z.bin"], await ListKeysAsync(store, "a/", 100));
        Assert.Equal(["ab", "abc/d.bin"], await ListKeysAsync(store, "ab", 100));
        Assert.Equal(["a/x.bin", "a/y/z.bin", "ab", "abc/d.bin"], await ListKeysAsync(store, "a", 100));
        Assert.Equal(["a/y/z.bin"], await ListKeysAsync(store, "a/y/", 100));
        Assert.Empty(await ListKeysAsync(store, "c", 100));
        Assert.Empty(await ListKeysAsync(store, "A", 100));
    }

    [Fact]
    public async Task List_EveryKey_InOrdinalOrder()
    {
        var store = CreateStore();
        // Ordinal: '-' < '.' < '/' < '0' < 'B' < '_' < 'a'; a culture-aware sort would order these otherwise.
        string[] keys = ["a", "a-b", "a.b", "a0", "aB", "a_", "ab/c", "B", "Z/x", "_u", "z"];
        foreach (var key in keys.Reverse())
        {
            await PutAsync(store, key, [2]);
        }

        var expected = keys.Order(StringComparer.Ordinal).ToArray();
        Assert.Equal(["B", "Z/x", "_u", "a", "a-b", "a.b", "a0", "aB", "a_", "ab/c", "z"], expected);
        Assert.Equal(expected, await ListKeysAsync(store, "", 100));
    }

    [Fact]
    public async Task List_Objects_CarryTheirInfo()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(777);
        var committed = await PutAsync(store, "l/one.bin", data, new ObjectCommit { ETag = ContentETag(data), ContentType = TextPlain, Digests = new Dictionary<string, byte[]> { ["sha-256"] = [5] } });
        await PutAsync(store, "l/two.bin", [1, 2, 3]);

        var page = await store.ListAsync("l/", 10);

        Assert.Null(page.NextCursor);
        Assert.Equal(2, page.Objects.Count);
        AssertSameInfo(committed, page.Objects[0]);
        Assert.Equal("l/two.bin", page.Objects[1].Key);
        Assert.Equal(3, page.Objects[1].Length);
        Assert.Equal(ContentETag([1, 2, 3]), page.Objects[1].ETag);
    }

    [Theory]
    [InlineData(7)]
    [InlineData(6)]
    [InlineData(1)]
    public async Task List_PagesOfTwo_CoverEveryKeyExactlyOnceInOrder(int count)
    {
        var store = CreateStore();
        var keys = Enumerable.Range(0, count).Select(i => $"p/{(char)('g' - i)}/{i}.bin").ToList();
        foreach (var key in keys)
        {
            await PutAsync(store, key, [(byte)key.Length]);
        }

        await PutAsync(store, "q/outside.bin", [1]);
        keys.Sort(StringComparer.Ordinal);

        var seen = new List<string>();
        string? cursor = null;
        for (var pages = 1; ; pages++)
        {
            Assert.True(pages <= count + 1, "The listing does not end.");
            var page = await store.ListAsync("p/", 2, cursor);
            Assert.InRange(page.Objects.Count, 0, 2);
            seen.AddRange(page.Objects.Select(o => o.Key));
            if (page.NextCursor is null)
            {
                break;
            }

            cursor = page.NextCursor;
        }

        Assert.Equal(keys, seen);
    }

    [Fact]
    public async Task List_EmptyStore_EmptyPageWithoutCursor()
    {
        var store = CreateStore();

        var page = await store.ListAsync("", 10);

        Assert.Empty(page.Objects);
        Assert.Null(page.NextCursor);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public async Task List_LimitBelowOne_Throws(int limit)
    {
        var store = CreateStore();
        await PutAsync(store, "x.bin", [1]);

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(async () => await store.ListAsync("", limit));
    }

    // ---- AddDigests -------------------------------------------------------------------------------------

    [Fact]
    public async Task AddDigests_CurrentETag_MergesAndKeepsTheRest()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(4000);
        var committed = await PutAsync(store, "d.bin", data, new ObjectCommit
        {
            ETag = ContentETag(data),
            ContentType = TextPlain,
            Digests = new Dictionary<string, byte[]> { ["sha-256"] = [1, 1], ["md5"] = [2, 2] },
        });

        await store.AddDigestsAsync("d.bin", committed.ETag, new Dictionary<string, byte[]> { ["sha-512"] = [3, 3], ["md5"] = [4, 4] });

        var info = await store.GetInfoAsync("d.bin");
        Assert.NotNull(info);
        AssertDigests(new Dictionary<string, byte[]> { ["sha-256"] = [1, 1], ["md5"] = [4, 4], ["sha-512"] = [3, 3] }, info.Digests);
        Assert.Equal(committed.ETag, info.ETag);
        Assert.Equal(TextPlain, info.ContentType);
        Assert.Equal(data.Length, info.Length);
        Assert.Equal(committed.LastModified, info.LastModified);
        Assert.Equal(data, await ReadAllAsync(store, "d.bin"));
    }

    [Fact]
    public async Task AddDigests_ObjectCommittedWithoutMetadata_AddsToDerivedInfo()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(4000);
        await PutAsync(store, "d.bin", data);

        await store.AddDigestsAsync("d.bin", ContentETag(data), new Dictionary<string, byte[]> { ["sha-256"] = [7] });

        var info = await store.GetInfoAsync("d.bin");
        Assert.NotNull(info);
        Assert.Equal(ContentETag(data), info.ETag);
        AssertDigests(new Dictionary<string, byte[]> { ["sha-256"] = [7] }, info.Digests);
    }

    [Fact]
    public async Task AddDigests_ETagOfReplacedVersion_Ignored()
    {
        var store = CreateStore();
        var first = DeterministicPayload.Create(100, seed: 1);
        var second = DeterministicPayload.Create(100, seed: 2);
        await PutAsync(store, "d.bin", first, WithContentETag(first));
        await PutAsync(store, "d.bin", second, new ObjectCommit { ETag = ContentETag(second), Digests = new Dictionary<string, byte[]> { ["md5"] = [1] } });

        await store.AddDigestsAsync("d.bin", ContentETag(first), new Dictionary<string, byte[]> { ["sha-256"] = [9], ["md5"] = [9] });

        var info = await store.GetInfoAsync("d.bin");
        Assert.NotNull(info);
        Assert.Equal(ContentETag(second), info.ETag);
        AssertDigests(new Dictionary<string, byte[]> { ["md5"] = [1] }, info.Digests);
    }

    [Fact]
    public async Task AddDigests_MissingKey_CreatesNothing()
    {
        var store = CreateStore();

        await store.AddDigestsAsync("none.bin", OtherETag(1), new Dictionary<string, byte[]> { ["sha-256"] = [9] });

        Assert.Null(await store.GetInfoAsync("none.bin"));
        Assert.Empty((await store.ListAsync("", 10)).Objects);
    }

    // ---- Key shapes -------------------------------------------------------------------------------------

    [Fact]
    public async Task NestedKey_RoundTripsAndListsWithSlashes()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(2048);

        await PutAsync(store, "a/b/c.bin", data, new ObjectCommit { ETag = ContentETag(data), ContentType = TextPlain });

        Assert.Equal(data, await ReadAllAsync(store, "a/b/c.bin"));
        var info = await store.GetInfoAsync("a/b/c.bin");
        Assert.NotNull(info);
        Assert.Equal("a/b/c.bin", info.Key);
        Assert.Equal(TextPlain, info.ContentType);
        Assert.Equal(["a/b/c.bin"], await ListKeysAsync(store, "a/b/", 10));
        // The prefixes of a key are not objects.
        Assert.Null(await store.GetInfoAsync("a/b"));
        Assert.Null(await store.OpenReadAsync("a"));
        Assert.False(await store.DeleteAsync("a/b"));
        Assert.True(await store.DeleteAsync("a/b/c.bin"));
        Assert.Empty((await store.ListAsync("", 10)).Objects);
    }

    [Fact]
    public async Task EmptyObject_CommitsListsAndReadsAsZeroBytes()
    {
        var store = CreateStore();

        await using (var writer = await store.BeginWriteAsync("empty.bin"))
        {
            await writer.CommitAsync();
        }

        var info = await store.GetInfoAsync("empty.bin");
        Assert.NotNull(info);
        Assert.Equal(0, info.Length);
        Assert.Equal(ContentETag([]), info.ETag);
        await using var reader = await store.OpenReadAsync("empty.bin");
        Assert.NotNull(reader);
        Assert.Equal(0, await reader.ReadAsync(0, new byte[16]));
        var listed = Assert.Single((await store.ListAsync("", 10)).Objects);
        Assert.Equal("empty.bin", listed.Key);
        Assert.Equal(0, listed.Length);
    }

    [Fact]
    public async Task EmptyObject_WithMetadata_KeepsIt()
    {
        var store = CreateStore();

        var committed = await PutAsync(store, "e/empty.txt", [], new ObjectCommit { ETag = ContentETag([]), ContentType = TextPlain });

        var info = await store.GetInfoAsync("e/empty.txt");
        Assert.NotNull(info);
        AssertSameInfo(committed, info);
        Assert.Equal(0, info.Length);
        Assert.Equal(TextPlain, info.ContentType);
    }

    // ---- Helpers ----------------------------------------------------------------------------------------

    /// <summary>The strong ETag a store derives for <paramref name="data"/>.</summary>
    protected static string ContentETag(byte[] data) => FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(data));

    /// <summary>A well-formed strong ETag that is no test payload's content hash.</summary>
    protected static string OtherETag(int n) => FileSystemObjectStore.FormatETag(new UInt128(0xABCDEF, (ulong)n));

    protected static ObjectCommit WithContentETag(byte[] data) => new() { ETag = ContentETag(data) };

    /// <summary>Writes <paramref name="data"/> in a few pieces and commits it with <paramref name="commit"/> (plain when null).</summary>
    protected static async Task<ObjectInfo> PutAsync(IObjectStore store, string key, byte[] data, ObjectCommit? commit = null)
    {
        await using var writer = await store.BeginWriteAsync(key, data.Length);
        var third = data.Length / 3;
        await writer.WriteAsync(data.AsMemory(0, third));
        await writer.WriteAsync(data.AsMemory(third, third));
        await writer.WriteAsync(data.AsMemory(2 * third));
        Assert.Equal(data.Length, writer.Length);
        if (commit is null)
        {
            await writer.CommitAsync();
            var info = await store.GetInfoAsync(key);
            Assert.NotNull(info);
            return info;
        }

        return await writer.CommitAsync(commit);
    }

    protected static async Task<byte[]> ReadAllAsync(IObjectStore store, string key)
    {
        await using var reader = await store.OpenReadAsync(key);
        Assert.NotNull(reader);
        return await ReadAllAsync(reader);
    }

    /// <summary>Every byte of the reader's version, in odd-sized reads; its length must be what its Info says.</summary>
    protected static async Task<byte[]> ReadAllAsync(IObjectReader reader)
    {
        var content = new byte[reader.Info.Length];
        var buffer = new byte[10_007];
        long offset = 0;
        while (true)
        {
            var read = await reader.ReadAsync(offset, buffer);
            if (read == 0)
            {
                break;
            }

            Assert.True(offset + read <= content.Length, $"The reader returns more than its Info's {content.Length} bytes.");
            buffer.AsSpan(0, read).CopyTo(content.AsSpan((int)offset));
            offset += read;
        }

        Assert.Equal(content.Length, offset);
        return content;
    }

    /// <summary>Fills <paramref name="destination"/> from <paramref name="offset"/> as far as the object goes (reads may be short).</summary>
    protected static async Task<int> ReadAtAsync(IObjectReader reader, long offset, byte[] destination)
    {
        var filled = 0;
        while (filled < destination.Length)
        {
            var read = await reader.ReadAsync(offset + filled, destination.AsMemory(filled));
            if (read == 0)
            {
                break;
            }

            filled += read;
        }

        return filled;
    }

    protected static async Task<List<string>> ListKeysAsync(IObjectStore store, string prefix, int limit)
    {
        var page = await store.ListAsync(prefix, limit);
        Assert.Null(page.NextCursor);
        return page.Objects.Select(o => o.Key).ToList();
    }

    protected static void AssertDigests(IReadOnlyDictionary<string, byte[]> expected, IReadOnlyDictionary<string, byte[]> actual)
    {
        Assert.Equal(expected.Keys.Order(StringComparer.Ordinal), actual.Keys.Order(StringComparer.Ordinal));
        foreach (var (algorithm, value) in expected)
        {
            Assert.Equal(value, actual[algorithm]);
        }
    }

    protected static void AssertSameInfo(ObjectInfo expected, ObjectInfo actual)
    {
        Assert.Equal(expected.Key, actual.Key);
        Assert.Equal(expected.Length, actual.Length);
        Assert.Equal(expected.ETag, actual.ETag);
        Assert.Equal(expected.ContentType, actual.ContentType);
        Assert.Equal(expected.LastModified, actual.LastModified);
        AssertDigests(expected.Digests, actual.Digests);
    }

    /// <summary>
    /// A sanity check, not a timing one: the time lies between the clock read before and after the commit,
    /// allowing for whole-second truncation and a file system's coarse clock (one second either side).
    /// </summary>
    private static void AssertRecent(DateTimeOffset lastModified, DateTimeOffset before, DateTimeOffset after)
    {
        Assert.Equal(TimeSpan.Zero, lastModified.Offset);
        Assert.InRange(lastModified, before.AddSeconds(-1), after.AddSeconds(1));
    }

    /// <summary>
    /// Commits <paramref name="versions"/> same-length versions of <paramref name="key"/> back to back while two
    /// readers open it in a loop, and sorts what the readers saw: an ETag not of the bytes read, or the
    /// version's bytes without the content type and digests committed with them.
    /// </summary>
    private async Task<ConcurrentReads> ReadWhileCommittingAsync(IObjectStore store, string key, int versions)
    {
        const int Size = 4096;
        var reads = new ConcurrentReads();
        var done = 0;

        async Task WriteVersionsAsync()
        {
            try
            {
                for (var version = 0; version < versions; version++)
                {
                    var data = VersionPayload(version, Size);
                    await PutAsync(store, key, data, VersionCommit(version, data));

                    // Let the readers in before the next commit, so reads and commits interleave even on a store
                    // that commits faster than a thread starts (bounded, in case a reader failed).
                    var readsBefore = Volatile.Read(ref reads.Total);
                    var waited = System.Diagnostics.Stopwatch.StartNew();
                    while (Volatile.Read(ref reads.Total) == readsBefore && waited.Elapsed < TimeSpan.FromSeconds(10))
                    {
                        await Task.Yield();
                    }
                }
            }
            finally
            {
                Volatile.Write(ref done, 1);
            }
        }

        async Task ReadVersionsAsync()
        {
            while (Volatile.Read(ref done) == 0)
            {
                await using var reader = await store.OpenReadAsync(key);
                if (reader is null)
                {
                    continue;
                }

                byte[] bytes;
                try
                {
                    bytes = await ReadAllAsync(reader);
                }
                catch (IOException) when (ReplacedReadersFail)
                {
                    continue;
                }

                var version = BitConverter.ToInt32(bytes, 0);
                Interlocked.Increment(ref reads.Total);
                var info = reader.Info;
                if (info.ETag != ContentETag(bytes) || info.Length != bytes.Length)
                {
                    reads.WrongETag.Enqueue($"bytes of version {version} ({ContentETag(bytes)}) served as {info.ETag}, length {info.Length}");
                }
                else if (info.ContentType != VersionType(version) || !info.Digests.TryGetValue("sha-256", out var digest) || !digest.AsSpan().SequenceEqual(BitConverter.GetBytes(version)))
                {
                    reads.MissingMetadata.Enqueue($"version {version}: type {info.ContentType ?? "null"}, {info.Digests.Count} digests");
                }
            }
        }

        await Task.WhenAll(Task.Run(WriteVersionsAsync), Task.Run(ReadVersionsAsync), Task.Run(ReadVersionsAsync));
        return reads;
    }

    private sealed class ConcurrentReads
    {
        public int Total;
        public readonly System.Collections.Concurrent.ConcurrentQueue<string> WrongETag = new();
        public readonly System.Collections.Concurrent.ConcurrentQueue<string> MissingMetadata = new();
    }

    /// <summary>Version <paramref name="version"/> of a same-length series: its number in the first four bytes.</summary>
    private static byte[] VersionPayload(int version, int size)
    {
        var data = DeterministicPayload.Create(size, seed: (ulong)version + 1000);
        BitConverter.TryWriteBytes(data, version);
        return data;
    }

    private static string VersionType(int version) => $"application/x-v{version}";

    private static Dictionary<string, byte[]> VersionDigests(int version) => new() { ["sha-256"] = BitConverter.GetBytes(version) };

    private static ObjectCommit VersionCommit(int version, byte[] data) =>
        new() { ETag = ContentETag(data), ContentType = VersionType(version), Digests = VersionDigests(version) };
}
