using Freight.Storage;

namespace Freight.Tests.Storage;

/// <summary>
/// A stored object's ETag is a published value (clients keep it for If-Match / If-None-Match): these pin the
/// exact tags for known payloads, so a change of hashing code that changed a tag fails here.
/// </summary>
/// <remarks>
/// The literals were produced by the in-house XXH3-128 port before it gave way to System.IO.Hashing; the
/// 1,048,583-byte one is also <c>xxhsum -H2</c>'s (the reference vectors in Hashing/).
/// </remarks>
public sealed class StoredObjectETagTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    public static TheoryData<int, string> PinnedETags => new()
    {
        { 0, "\"99aa06d3014798d86001c324468d497f\"" },
        { 1_048_583, "\"80dbfe05a83d5592e5306223e2cb11e2\"" },
        { 3_145_733, "\"31f9e5c8b73aa85dd4180d0ee49c7b8e\"" },
    };

    [Theory]
    [MemberData(nameof(PinnedETags))]
    public async Task FileSystemStore_CommitWithoutETag_DerivesThePinnedTag(int length, string expected)
    {
        // No ETag on commit: the store reads the file back in 1 MiB chunks and hashes it (the streaming path).
        var store = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = _dir.Combine("root") });
        await PutAsync(store, Pattern(length));

        var info = await store.GetInfoAsync("object.bin");

        Assert.NotNull(info);
        Assert.Equal(expected, info.ETag);
    }

    [Theory]
    [MemberData(nameof(PinnedETags))]
    public async Task MemoryStore_CommitWithoutETag_GivesThePinnedTag(int length, string expected)
    {
        // The memory store hashes the whole buffer at once (the one-shot path).
        var store = new MemoryObjectStore();
        await PutAsync(store, Pattern(length));

        var info = await store.GetInfoAsync("object.bin");

        Assert.NotNull(info);
        Assert.Equal(expected, info.ETag);
    }

    private static async Task PutAsync(IObjectStore store, byte[] data)
    {
        // Written in uneven pieces, so no chunk boundary of the write lines up with the hash's.
        await using var writer = await store.BeginWriteAsync("object.bin", data.Length);
        for (var offset = 0; offset < data.Length; offset += 700_001)
        {
            await writer.WriteAsync(data.AsMemory(offset, Math.Min(700_001, data.Length - offset)));
        }

        await writer.CommitAsync();
    }

    /// <summary>The reference vectors' pattern: byte i is (i * 31 + 7) mod 256.</summary>
    private static byte[] Pattern(int length)
    {
        var data = new byte[length];
        for (var i = 0; i < length; i++)
        {
            data[i] = (byte)((i * 31) + 7);
        }

        return data;
    }
}
