using System.IO.Hashing;
using System.IO.Pipelines;
using Freight.Hashing;
using Freight.Lab.Payload;
using Freight.Storage;
using Freight.Lab.Uploads;

namespace Freight.Tests.Uploads;

public sealed class BodyPumpTests : IDisposable
{
    // XXH3-128 of no bytes (xxhsum -H2 of an empty file), as in XxHash128Tests.
    private const string EmptyHash = "99aa06d3014798d86001c324468d497f";

    private readonly TempDirectory _dir = new();
    private readonly FileSystemObjectStore _store;

    public BodyPumpTests()
    {
        _store = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = _dir.Path });
    }

    public delegate ValueTask<UploadResult> PipeCopy(PipeReader body, IObjectWriter? writer, CancellationToken cancellationToken);

    public enum Variant
    {
        Batched,
        PerSegment,
    }

    public void Dispose() => _dir.Dispose();

    private static PipeCopy Copy(Variant variant) => variant switch
    {
        Variant.Batched => BodyPump.CopyAsync,
        _ => BodyPump.CopyPerSegmentAsync,
    };

    private static string Hash(byte[] data) => HashHex.ToHex(XxHash128.HashToUInt128(data));

    /// <summary>Writes <paramref name="data"/> into the pipe in pieces of the given sizes (cycled), then completes it.</summary>
    private static Task ProduceAsync(PipeWriter writer, byte[] data, int[] pieceSizes, Exception? error = null) =>
        Task.Run(async () =>
        {
            var offset = 0;
            for (var i = 0; offset < data.Length; i++)
            {
                var size = Math.Min(pieceSizes[i % pieceSizes.Length], data.Length - offset);
                await writer.WriteAsync(data.AsMemory(offset, size));
                offset += size;
            }

            await writer.CompleteAsync(error);
        });

    public static TheoryData<Variant, int, int[]> Bodies()
    {
        var data = new TheoryData<Variant, int, int[]>();
        foreach (var variant in new[] { Variant.Batched, Variant.PerSegment })
        {
            data.Add(variant, 1, [1]);
            data.Add(variant, 4097, [1, 7, 4096]);
            data.Add(variant, BodyPump.BatchBytes - 1, [65_536]);
            data.Add(variant, BodyPump.BatchBytes + 1, [BodyPump.BatchBytes + 1]);
            data.Add(variant, 1024 * 1024 + 3, [1, 13, 4096, 65_536, 300_000, 3]);
            data.Add(variant, 3 * 1024 * 1024 + 5, [1024 * 1024]);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Bodies))]
    public async Task Copy_BodyInPieces_StoresExactBytesAndHash(Variant variant, int length, int[] pieceSizes)
    {
        var data = DeterministicPayload.Create(length);
        var pipe = new Pipe();
        var produce = ProduceAsync(pipe.Writer, data, pieceSizes);

        UploadResult result;
        await using (var writer = await _store.BeginWriteAsync("body.bin", length))
        {
            result = await Copy(variant)(pipe.Reader, writer, CancellationToken.None);
            Assert.Equal(length, writer.Length);
            await writer.CommitAsync();
        }

        await produce;
        Assert.Equal(length, result.Bytes);
        Assert.Equal(Hash(data), result.Hash);
        Assert.Equal(data, await File.ReadAllBytesAsync(_store.GetPath("body.bin")));
    }

    [Theory]
    [MemberData(nameof(Bodies))]
    public async Task Copy_NullWriter_OnlyHashes(Variant variant, int length, int[] pieceSizes)
    {
        var data = DeterministicPayload.Create(length, seed: 5);
        var pipe = new Pipe();
        var produce = ProduceAsync(pipe.Writer, data, pieceSizes);

        var result = await Copy(variant)(pipe.Reader, null, CancellationToken.None);

        await produce;
        Assert.Equal(length, result.Bytes);
        Assert.Equal(Hash(data), result.Hash);
        Assert.Empty(_dir.RelativeFiles());
    }

    [Theory]
    [InlineData(Variant.Batched)]
    [InlineData(Variant.PerSegment)]
    public async Task Copy_EmptyBody_ZeroBytesAndEmptyHash(Variant variant)
    {
        var pipe = new Pipe();
        await pipe.Writer.CompleteAsync();

        UploadResult result;
        await using (var writer = await _store.BeginWriteAsync("empty.bin"))
        {
            result = await Copy(variant)(pipe.Reader, writer, CancellationToken.None);
            await writer.CommitAsync();
        }

        Assert.Equal(0, result.Bytes);
        Assert.Equal(EmptyHash, result.Hash);
        Assert.Empty(await File.ReadAllBytesAsync(_store.GetPath("empty.bin")));
    }

    [Theory]
    [InlineData(Variant.Batched)]
    [InlineData(Variant.PerSegment)]
    public async Task Copy_BodyFailsMidway_PropagatesErrorAndLeavesNoFile(Variant variant)
    {
        var data = DeterministicPayload.Create(500_000);
        var error = new InvalidDataException("client went away");
        var pipe = new Pipe();
        var produce = ProduceAsync(pipe.Writer, data, [4096, 100_000], error);

        await using (var writer = await _store.BeginWriteAsync("failed.bin", data.Length))
        {
            var thrown = await Assert.ThrowsAsync<InvalidDataException>(() => Copy(variant)(pipe.Reader, writer, CancellationToken.None).AsTask());
            Assert.Same(error, thrown);
        }

        await produce;
        Assert.Empty(_dir.RelativeFiles());
    }

    [Theory]
    [InlineData(Variant.Batched)]
    [InlineData(Variant.PerSegment)]
    public async Task Copy_ReadCanceled_ThrowsOperationCanceled(Variant variant)
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(new byte[] { 1, 2, 3 });
        pipe.Reader.CancelPendingRead();

        await Assert.ThrowsAsync<OperationCanceledException>(() => Copy(variant)(pipe.Reader, null, CancellationToken.None).AsTask());
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(4095)]
    [InlineData(4096)]
    [InlineData(4097)]
    [InlineData(1024 * 1024 + 3)]
    public async Task CopyStream_BufferSize4096_StoresExactBytesAndHash(int length)
    {
        var data = DeterministicPayload.Create(length, seed: 11);
        using var source = new MemoryStream(data, writable: false);

        UploadResult result;
        await using (var writer = await _store.BeginWriteAsync("stream.bin"))
        {
            result = await BodyPump.CopyAsync(source, writer, bufferSize: 4096);
            await writer.CommitAsync();
        }

        Assert.Equal(length, result.Bytes);
        Assert.Equal(Hash(data), result.Hash);
        Assert.Equal(data, await File.ReadAllBytesAsync(_store.GetPath("stream.bin")));
    }

    [Fact]
    public async Task CopyStream_NullWriter_OnlyHashes()
    {
        var data = DeterministicPayload.Create(70_001);
        using var source = new MemoryStream(data, writable: false);

        var result = await BodyPump.CopyAsync(source, null, bufferSize: 4096);

        Assert.Equal(70_001, result.Bytes);
        Assert.Equal(Hash(data), result.Hash);
        Assert.Empty(_dir.RelativeFiles());
    }

    [Fact]
    public async Task CopyStream_EmptySource_ZeroBytesAndEmptyHash()
    {
        using var source = new MemoryStream();

        var result = await BodyPump.CopyAsync(source, null, bufferSize: 4096);

        Assert.Equal(0, result.Bytes);
        Assert.Equal(EmptyHash, result.Hash);
    }

    [Fact]
    public async Task CopyStream_SourceFails_PropagatesErrorAndLeavesNoFile()
    {
        var error = new IOException("reset");
        var pipe = new Pipe();
        var produce = ProduceAsync(pipe.Writer, DeterministicPayload.Create(20_000), [3000], error);
        await using var source = pipe.Reader.AsStream();

        await using (var writer = await _store.BeginWriteAsync("failed.bin"))
        {
            var thrown = await Assert.ThrowsAsync<IOException>(() => BodyPump.CopyAsync(source, writer, bufferSize: 4096).AsTask());
            Assert.Same(error, thrown);
        }

        await produce;
        Assert.Empty(_dir.RelativeFiles());
    }
}
