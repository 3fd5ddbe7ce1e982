using System.Buffers;
using Freight.Lab.Payload;
using Freight.Storage;

namespace Freight.Tests.Storage;

public sealed class FileSystemObjectStoreTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private FileSystemObjectStore CreateStore(bool flushToDisk = false) =>
        new(new FileSystemStoreOptions { RootDirectory = _dir.Path, FlushToDisk = flushToDisk });

    private static bool IsTempFile(string relativePath)
    {
        var name = Path.GetFileName(relativePath);
        return name.StartsWith('.') && name.EndsWith(FileSystemObjectStore.TempSuffix, StringComparison.Ordinal);
    }

    private static async Task WriteAndCommitAsync(IObjectStore store, string key, byte[] data, long? expectedLength = null)
    {
        await using var writer = await store.BeginWriteAsync(key, expectedLength);
        await writer.WriteAsync(data.AsMemory());
        await writer.CommitAsync();
    }

    [Fact]
    public void Constructor_MissingRoot_CreatesItAndExposesAbsolutePath()
    {
        var root = _dir.Combine("store", "root");

        var store = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = root });

        Assert.True(Directory.Exists(root));
        Assert.Equal(Path.GetFullPath(root), store.RootDirectory);
        Assert.Equal(Path.Combine(root, "a", "b.bin"), store.GetPath("a/b.bin"));
    }

    [Fact]
    public async Task Commit_SingleSegmentWrites_ObjectHasExactBytes()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(300_001);

        await using (var writer = await store.BeginWriteAsync("one.bin"))
        {
            Assert.Equal("one.bin", writer.Key);
            await writer.WriteAsync(new ReadOnlySequence<byte>(data, 0, 100_000));
            await writer.WriteAsync(data.AsMemory(100_000, 1));
            await writer.WriteAsync(ReadOnlyMemory<byte>.Empty);
            await writer.WriteAsync(ReadOnlySequence<byte>.Empty);
            await writer.WriteAsync(new ReadOnlySequence<byte>(data, 100_001, 200_000));
            Assert.Equal(data.Length, writer.Length);
            await writer.CommitAsync();
        }

        Assert.Equal(data, await File.ReadAllBytesAsync(store.GetPath("one.bin")));
        Assert.Equal(["one.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public async Task Commit_MultiSegmentWrites_ObjectHasExactBytes()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(1024 * 1024 + 77);

        await using (var writer = await store.BeginWriteAsync("multi.bin"))
        {
            // Segment sizes: odd, tiny, page-sized and large, so the gather write sees every shape.
            var first = Segments.Create(data.AsMemory(0, 1), data.AsMemory(1, 4095), data.AsMemory(4096, 7), data.AsMemory(4103, 65536));
            Assert.False(first.IsSingleSegment);
            await writer.WriteAsync(first);
            Assert.Equal(69_639, writer.Length);

            // A memory write between two gather writes must land at the right offset.
            await writer.WriteAsync(data.AsMemory(69_639, 3));

            var rest = data.AsMemory(69_642);
            var second = Segments.Create(rest[..500_000], rest[500_000..]);
            await writer.WriteAsync(second);
            Assert.Equal(data.Length, writer.Length);
            await writer.CommitAsync();
        }

        Assert.Equal(data, await File.ReadAllBytesAsync(store.GetPath("multi.bin")));
    }

    [Fact]
    public async Task Commit_SequenceSlicedInsideSegments_WritesOnlyTheSlice()
    {
        // A pipe hands out sequences that start and end mid-segment.
        var store = CreateStore();
        var data = DeterministicPayload.Create(10_000);
        var sequence = Segments.Create(data.AsMemory(0, 3000), data.AsMemory(3000, 3000), data.AsMemory(6000, 4000)).Slice(1234, 7000);

        await using (var writer = await store.BeginWriteAsync("slice.bin"))
        {
            await writer.WriteAsync(sequence);
            await writer.CommitAsync();
        }

        Assert.Equal(data.AsSpan(1234, 7000).ToArray(), await File.ReadAllBytesAsync(store.GetPath("slice.bin")));
    }

    [Fact]
    public async Task Write_BeforeCommit_OnlyOneHiddenTempFileExists()
    {
        var store = CreateStore();

        await using var writer = await store.BeginWriteAsync("dir/pending.bin", expectedLength: 4096);
        await writer.WriteAsync(DeterministicPayload.Create(1000).AsMemory());

        Assert.False(File.Exists(store.GetPath("dir/pending.bin")));
        var files = _dir.RelativeFiles();
        var temp = Assert.Single(files);
        Assert.True(IsTempFile(temp), temp);
        // In the target's own directory (same file system: the commit is a rename), named by a GUID so a
        // name at the key's length limit still fits.
        Assert.StartsWith("dir/.", temp, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Dispose_WithoutCommit_DeletesTempAndKeepsPreviousVersion()
    {
        var store = CreateStore();
        var previous = DeterministicPayload.Create(5000, seed: 1);
        await WriteAndCommitAsync(store, "keep.bin", previous);

        await using (var writer = await store.BeginWriteAsync("keep.bin", expectedLength: 9000))
        {
            await writer.WriteAsync(DeterministicPayload.Create(8000, seed: 2).AsMemory());
        }

        Assert.Equal(previous, await File.ReadAllBytesAsync(store.GetPath("keep.bin")));
        Assert.Equal(["keep.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public async Task Dispose_WithoutCommitOrPrevious_LeavesNothing()
    {
        var store = CreateStore();

        await using (var writer = await store.BeginWriteAsync("gone.bin"))
        {
            await writer.WriteAsync(new byte[] { 1, 2, 3 }.AsMemory());
        }

        Assert.Empty(_dir.RelativeFiles());
    }

    [Fact]
    public async Task Dispose_AfterCommit_KeepsObject()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(100);

        var writer = await store.BeginWriteAsync("kept.bin");
        await writer.WriteAsync(data.AsMemory());
        await writer.CommitAsync();
        await writer.DisposeAsync();
        await writer.DisposeAsync();

        Assert.Equal(data, await File.ReadAllBytesAsync(store.GetPath("kept.bin")));
    }

    [Fact]
    public async Task Commit_Twice_ThrowsObjectDisposed()
    {
        var store = CreateStore();

        await using var writer = await store.BeginWriteAsync("twice.bin");
        await writer.CommitAsync();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => writer.CommitAsync().AsTask());
    }

    [Theory]
    [InlineData(0, 0)]
    [InlineData(1, 0)]
    [InlineData(10_000, 0)]
    [InlineData(10_000, 9_999)]
    [InlineData(10_000, 10_000)]
    [InlineData(5_000_000, 1_234_567)]
    public async Task Commit_ExpectedLengthAtLeastWritten_FileLengthIsBytesWritten(long expectedLength, int written)
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(written);

        await WriteAndCommitAsync(store, "sized.bin", data, expectedLength);

        Assert.Equal(written, new FileInfo(store.GetPath("sized.bin")).Length);
        Assert.Equal(data, await File.ReadAllBytesAsync(store.GetPath("sized.bin")));
    }

    [Fact]
    public async Task Commit_ExpectedLengthLargerThanWritten_ReleasesReservedDiskSpace()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // The allocated size is read with stat(1).
        }

        var store = CreateStore();

        // A multipart file part reserved at the whole body's length (what the lab's file sink does).
        await WriteAndCommitAsync(store, "reserved.bin", DeterministicPayload.Create(1000), expectedLength: 8 * 1024 * 1024);

        Assert.Equal(1000, new FileInfo(store.GetPath("reserved.bin")).Length);
        Assert.InRange(AllocatedBytes(store.GetPath("reserved.bin")), 0, 64 * 1024);
    }

    [Fact]
    public async Task Commit_ExpectedLengthSmallerThanWritten_KeepsAllBytes()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(20_000);

        await WriteAndCommitAsync(store, "grown.bin", data, expectedLength: 100);

        Assert.Equal(data, await File.ReadAllBytesAsync(store.GetPath("grown.bin")));
    }

    [Fact]
    public async Task Commit_ExistingObject_ReplacesItWhole()
    {
        var store = CreateStore();
        await WriteAndCommitAsync(store, "obj.bin", DeterministicPayload.Create(50_000, seed: 1));
        var second = DeterministicPayload.Create(123, seed: 2);

        await WriteAndCommitAsync(store, "obj.bin", second);

        Assert.Equal(second, await File.ReadAllBytesAsync(store.GetPath("obj.bin")));
        Assert.Equal(["obj.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public async Task Commit_TwoOverlappingWriters_LastCommitWins()
    {
        var store = CreateStore();
        var a = DeterministicPayload.Create(300_000, seed: 1);
        var b = DeterministicPayload.Create(200_000, seed: 2);

        await using var writerA = await store.BeginWriteAsync("race.bin", a.Length);
        await using var writerB = await store.BeginWriteAsync("race.bin", b.Length);
        for (var offset = 0; offset < a.Length; offset += 50_000)
        {
            await writerA.WriteAsync(a.AsMemory(offset, 50_000));
            if (offset < b.Length)
            {
                await writerB.WriteAsync(b.AsMemory(offset, 50_000));
            }
        }

        await writerB.CommitAsync();
        Assert.Equal(b, await File.ReadAllBytesAsync(store.GetPath("race.bin")));

        await writerA.CommitAsync();
        Assert.Equal(a, await File.ReadAllBytesAsync(store.GetPath("race.bin")));
        Assert.Equal(["race.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public async Task Commit_TwoConcurrentWriters_FinalObjectIsOnePayloadWhole()
    {
        var store = CreateStore();
        var a = DeterministicPayload.Create(2 * 1024 * 1024, seed: 1);
        var b = DeterministicPayload.Create(2 * 1024 * 1024 + 1, seed: 2);

        for (var round = 0; round < 20; round++)
        {
            await Task.WhenAll(
                Task.Run(() => WriteInChunksAsync(store, a)),
                Task.Run(() => WriteInChunksAsync(store, b)));

            var final = await File.ReadAllBytesAsync(store.GetPath("shared/race.bin"));
            Assert.True(final.AsSpan().SequenceEqual(a) || final.AsSpan().SequenceEqual(b), $"Round {round}: the object is neither payload whole ({final.Length} bytes).");
            Assert.Equal(["shared/race.bin"], _dir.RelativeFiles());
        }

        static async Task WriteInChunksAsync(IObjectStore store, byte[] data)
        {
            await using var writer = await store.BeginWriteAsync("shared/race.bin", data.Length);
            for (var offset = 0; offset < data.Length; offset += 64 * 1024)
            {
                await writer.WriteAsync(data.AsMemory(offset, Math.Min(64 * 1024, data.Length - offset)));
            }

            await writer.CommitAsync();
        }
    }

    [Fact]
    public async Task DeleteAbandonedTempFiles_NestedTempFiles_RemovesOnlyThem()
    {
        var store = CreateStore();
        await WriteAndCommitAsync(store, "a/b/c.bin", [1, 2, 3]);
        await WriteAndCommitAsync(store, "top.bin", [4]);
        string[] abandoned =
        [
            $".top.bin.0123456789abcdef0123456789abcdef{FileSystemObjectStore.TempSuffix}",
            $"a/.x.bin.00000000000000000000000000000000{FileSystemObjectStore.TempSuffix}",
            $"a/b/.c.bin.ffffffffffffffffffffffffffffffff{FileSystemObjectStore.TempSuffix}",
        ];
        string[] others =
        [
            "a/b/.hidden",
            "a/.y.bin.tmp",
            $"a/not{FileSystemObjectStore.TempSuffix}.bin",
            $"a/b/c.bin{FileSystemObjectStore.TempSuffix[..^1]}",
        ];
        foreach (var file in abandoned.Concat(others))
        {
            await File.WriteAllBytesAsync(_dir.Combine(file.Split('/')), [9]);
        }

        var removed = store.DeleteAbandonedTempFiles();

        Assert.Equal(abandoned.Length, removed);
        var expected = new List<string>(others) { "a/b/c.bin", "top.bin" };
        expected.Sort(StringComparer.Ordinal);
        Assert.Equal(expected, _dir.RelativeFiles());
        Assert.Equal(new byte[] { 1, 2, 3 }, await File.ReadAllBytesAsync(store.GetPath("a/b/c.bin")));
    }

    [Fact]
    public async Task DeleteAbandonedTempFiles_TempOfUnfinishedWriter_RemovesIt()
    {
        // A writer that never reached commit or dispose (the process died) leaves its temp file behind.
        var store = CreateStore();
        var writer = await store.BeginWriteAsync("x/crashed.bin");
        await writer.WriteAsync(new byte[] { 1 }.AsMemory());

        Assert.Equal(1, store.DeleteAbandonedTempFiles());

        Assert.Empty(_dir.RelativeFiles());
        await writer.DisposeAsync();
        Assert.Equal(0, store.DeleteAbandonedTempFiles());
    }

    [Fact]
    public async Task Commit_FlushToDisk_ObjectHasExactBytes()
    {
        var store = CreateStore(flushToDisk: true);
        var data = DeterministicPayload.Create(1024 * 1024 + 3);

        await using (var writer = await store.BeginWriteAsync("durable.bin", expectedLength: 2 * 1024 * 1024))
        {
            await writer.WriteAsync(Segments.Create(data.AsMemory(0, 1000), data.AsMemory(1000)));
            await writer.CommitAsync();
        }

        Assert.Equal(data, await File.ReadAllBytesAsync(store.GetPath("durable.bin")));
        Assert.Equal(["durable.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public async Task Commit_NestedKey_CreatesDirectories()
    {
        var store = CreateStore();
        var data = DeterministicPayload.Create(64);

        await WriteAndCommitAsync(store, "a/b/c.bin", data);

        Assert.True(Directory.Exists(_dir.Combine("a", "b")));
        Assert.Equal(data, await File.ReadAllBytesAsync(_dir.Combine("a", "b", "c.bin")));
        Assert.Equal(["a/b/c.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public async Task Commit_EmptyObject_CreatesEmptyFile()
    {
        var store = CreateStore();

        await WriteAndCommitAsync(store, "empty.bin", []);

        Assert.Empty(await File.ReadAllBytesAsync(store.GetPath("empty.bin")));
    }

    /// <summary>Bytes the file system allocated to <paramref name="path"/> (st_blocks × 512), read with stat(1).</summary>
    private static long AllocatedBytes(string path)
    {
        using var stat = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo("stat", ["-c", "%b", path])
        {
            RedirectStandardOutput = true,
        })!;
        var output = stat.StandardOutput.ReadToEnd();
        stat.WaitForExit();
        Assert.Equal(0, stat.ExitCode);
        return long.Parse(output.Trim(), System.Globalization.CultureInfo.InvariantCulture) * 512;
    }

    /// <summary>Builds multi-segment sequences, as a pipe's buffer list would be.</summary>
    private sealed class Segments : ReadOnlySequenceSegment<byte>
    {
        private Segments(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public static ReadOnlySequence<byte> Create(params ReadOnlyMemory<byte>[] parts)
        {
            var first = new Segments(parts[0], 0);
            var last = first;
            for (var i = 1; i < parts.Length; i++)
            {
                var next = new Segments(parts[i], last.RunningIndex + last.Memory.Length);
                last.Next = next;
                last = next;
            }

            return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
        }
    }
}
