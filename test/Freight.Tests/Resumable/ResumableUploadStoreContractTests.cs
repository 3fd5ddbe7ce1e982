using System.Buffers;
using System.IO.Hashing;
using Freight.Lab.Payload;
using Freight.Resumable;
using Freight.Storage;

namespace Freight.Tests.Resumable;

/// <summary>
/// What every <see cref="IResumableUploadStore"/> promises, run once per store by a subclass that pairs an
/// empty one with its object store. Only the interfaces are used here.
/// </summary>
public abstract class ResumableUploadStoreContractTests
{
    /// <summary>A new, empty resumable store and the object store its uploads finish into.</summary>
    protected abstract (IResumableUploadStore Uploads, IObjectStore Files) CreateStores();

    protected static ResumableUpload NewUpload(long? length, string? target = "done.bin", ResumableUploadKind kind = ResumableUploadKind.Regular) => new()
    {
        Id = ResumableUploadId.New(),
        Length = length,
        Metadata = "filename ZG9uZS5iaW4=",
        Kind = kind,
        TargetKey = target,
        CreatedAt = DateTimeOffset.UtcNow,
    };

    [Fact]
    public async Task Create_Get_ReturnsTheRecordAtOffsetZero()
    {
        var (uploads, _) = CreateStores();
        var upload = NewUpload(1000) with { Kind = ResumableUploadKind.Final, Parts = [ResumableUploadId.New(), ResumableUploadId.New()] };

        await uploads.CreateAsync(upload);
        var found = await uploads.GetAsync(upload.Id);

        Assert.NotNull(found);
        Assert.Equal(upload.Id, found.Id);
        Assert.Equal(1000, found.Length);
        Assert.Equal(0, found.Offset);
        Assert.Equal(upload.Metadata, found.Metadata);
        Assert.Equal(ResumableUploadKind.Final, found.Kind);
        Assert.Equal(upload.Parts, found.Parts);
        Assert.Equal("done.bin", found.TargetKey);
        Assert.Equal(upload.CreatedAt, found.CreatedAt);
        Assert.Null(found.Completion);
        Assert.False(found.HasAllBytes);
    }

    [Theory]
    [InlineData("0123456789abcdef0123456789abcdef")]
    [InlineData("../../etc/passwd")]
    [InlineData("0123456789ABCDEF0123456789ABCDEF")]
    [InlineData("")]
    public async Task Get_UnknownOrMalformedId_IsNull(string id)
    {
        var (uploads, _) = CreateStores();

        Assert.Null(await uploads.GetAsync(id));
    }

    [Fact]
    public async Task Append_InPieces_OffsetAndBytesFollow()
    {
        var (uploads, _) = CreateStores();
        var data = DeterministicPayload.Create(300_001, seed: 4);
        var upload = NewUpload(data.Length);
        await uploads.CreateAsync(upload);

        await AppendAsync(uploads, upload.Id, 0, data.AsMemory(0, 100_000));
        // A sequence of several segments, as a pipe hands them over.
        await using (var appender = await uploads.BeginAppendAsync(upload.Id, 100_000))
        {
            await appender.WriteAsync(Segmented(data.AsMemory(100_000, 200_001), 3));
            Assert.Equal(300_001, appender.Offset);
            Assert.Equal(100_000, appender.StartOffset);
        }

        var found = await uploads.GetAsync(upload.Id);
        Assert.Equal(data.Length, found!.Offset);
        Assert.True(found.HasAllBytes);
        Assert.Equal(data, await ReadAllAsync(uploads, upload.Id));
    }

    [Fact]
    public async Task Append_AtAnotherOffset_ConflictNamesTheCurrentOne()
    {
        var (uploads, _) = CreateStores();
        var upload = NewUpload(100);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, new byte[10]);

        var conflict = await Assert.ThrowsAsync<ResumableOffsetConflictException>(async () => await uploads.BeginAppendAsync(upload.Id, 5));

        Assert.Equal(10, conflict.Current);
        Assert.Equal(5, conflict.Requested);
        Assert.Equal(10, (await uploads.GetAsync(upload.Id))!.Offset);
    }

    [Fact]
    public async Task Discard_TakesBackOnlyThatAppend()
    {
        var (uploads, _) = CreateStores();
        var data = DeterministicPayload.Create(50_000, seed: 5);
        var upload = NewUpload(data.Length);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, data.AsMemory(0, 20_000));

        await using (var appender = await uploads.BeginAppendAsync(upload.Id, 20_000))
        {
            await appender.WriteAsync(new ReadOnlySequence<byte>(new byte[30_000]));
            await appender.DiscardAsync();
            Assert.Equal(20_000, appender.Offset);
        }

        Assert.Equal(20_000, (await uploads.GetAsync(upload.Id))!.Offset);
        await AppendAsync(uploads, upload.Id, 20_000, data.AsMemory(20_000));
        Assert.Equal(data, await ReadAllAsync(uploads, upload.Id));
    }

    [Fact]
    public async Task Update_DeclaresADeferredLength()
    {
        var (uploads, _) = CreateStores();
        var upload = NewUpload(null);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, new byte[7]);

        await uploads.UpdateAsync(upload with { Length = 7 });
        var found = await uploads.GetAsync(upload.Id);

        Assert.Equal(7, found!.Length);
        Assert.Equal(7, found.Offset);
        Assert.True(found.HasAllBytes);
    }

    [Fact]
    public async Task Complete_MakesTheObjectWithItsMetadata_AndTheUploadRemembersIt()
    {
        var (uploads, files) = CreateStores();
        var data = DeterministicPayload.Create(123_457, seed: 6);
        var upload = NewUpload(data.Length, "folder/done.bin");
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, data);
        var etag = FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(data));

        var info = await uploads.CompleteAsync((await uploads.GetAsync(upload.Id))!, "folder/done.bin",
            new ObjectCommit { ETag = etag, ContentType = "image/png", Digests = new Dictionary<string, byte[]> { ["sha-256"] = [9, 9] } });

        Assert.Equal(etag, info.ETag);
        Assert.Equal(data.Length, info.Length);
        await using (var reader = await files.OpenReadAsync("folder/done.bin"))
        {
            Assert.NotNull(reader);
            Assert.Equal(etag, reader.Info.ETag);
            Assert.Equal("image/png", reader.Info.ContentType);
            Assert.Equal([9, 9], reader.Info.Digests["sha-256"]);
            var stored = new byte[data.Length];
            var read = 0;
            while (read < stored.Length)
            {
                read += await reader.ReadAsync(read, stored.AsMemory(read));
            }

            Assert.Equal(data, stored);
        }

        var found = await uploads.GetAsync(upload.Id);
        Assert.NotNull(found!.Completion);
        Assert.Equal("folder/done.bin", found.Completion.Key);
        Assert.Equal(etag, found.Completion.ETag);
        Assert.Equal(data.Length, found.Offset);
        await Assert.ThrowsAsync<ResumableOffsetConflictException>(async () => await uploads.BeginAppendAsync(upload.Id, data.Length));
    }

    [Fact]
    public async Task Complete_EmptyUpload_MakesAnEmptyObject()
    {
        var (uploads, files) = CreateStores();
        var upload = NewUpload(0, "empty.bin");
        await uploads.CreateAsync(upload);
        var etag = FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128([]));

        await uploads.CompleteAsync((await uploads.GetAsync(upload.Id))!, "empty.bin", new ObjectCommit { ETag = etag });

        Assert.Equal(0, (await files.GetInfoAsync("empty.bin"))!.Length);
    }

    [Fact]
    public async Task Delete_RemovesTheUpload_Once()
    {
        var (uploads, _) = CreateStores();
        var upload = NewUpload(10);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, new byte[4]);

        Assert.True(await uploads.DeleteAsync(upload.Id));
        Assert.Null(await uploads.GetAsync(upload.Id));
        Assert.False(await uploads.DeleteAsync(upload.Id));
    }

    [Fact]
    public async Task List_ReturnsEveryUploadWithItsOffset()
    {
        var (uploads, _) = CreateStores();
        var first = NewUpload(10);
        var second = NewUpload(null, null, ResumableUploadKind.Partial);
        await uploads.CreateAsync(first);
        await uploads.CreateAsync(second);
        await AppendAsync(uploads, second.Id, 0, new byte[3]);

        var listed = new List<ResumableUpload>();
        await foreach (var upload in uploads.ListAsync())
        {
            listed.Add(upload);
        }

        Assert.Equal(2, listed.Count);
        Assert.Equal(0, listed.Single(u => u.Id == first.Id).Offset);
        Assert.Equal(3, listed.Single(u => u.Id == second.Id).Offset);
    }

    [Fact]
    public async Task LastActivity_MovesWhenBytesArrive()
    {
        var (uploads, _) = CreateStores();
        var upload = NewUpload(10) with { CreatedAt = DateTimeOffset.UtcNow.AddHours(-1) };
        await uploads.CreateAsync(upload);
        var before = DateTimeOffset.UtcNow.AddSeconds(-1);

        await AppendAsync(uploads, upload.Id, 0, new byte[3]);

        Assert.True((await uploads.GetAsync(upload.Id))!.LastActivityAt >= before);
    }

    protected static async Task AppendAsync(IResumableUploadStore uploads, string id, long offset, ReadOnlyMemory<byte> data)
    {
        await using var appender = await uploads.BeginAppendAsync(id, offset);
        await appender.WriteAsync(new ReadOnlySequence<byte>(data));
    }

    protected static async Task<byte[]> ReadAllAsync(IResumableUploadStore uploads, string id)
    {
        var all = new MemoryStream();
        var buffer = new byte[64 * 1024];
        int read;
        for (long offset = 0; (read = await uploads.ReadAsync(id, offset, buffer)) > 0; offset += read)
        {
            all.Write(buffer, 0, read);
        }

        return all.ToArray();
    }

    private static ReadOnlySequence<byte> Segmented(ReadOnlyMemory<byte> data, int pieces)
    {
        var size = data.Length / pieces;
        Segment? first = null;
        Segment? last = null;
        for (var i = 0; i < pieces; i++)
        {
            var piece = data.Slice(i * size, i == pieces - 1 ? data.Length - (i * size) : size);
            last = last is null ? first = new Segment(piece, 0) : last.Append(piece);
        }

        return new ReadOnlySequence<byte>(first!, 0, last!, last!.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }
}

/// <summary>The contract on <see cref="MemoryResumableUploadStore"/> with a <see cref="MemoryObjectStore"/>.</summary>
public sealed class MemoryResumableUploadStoreContractTests : ResumableUploadStoreContractTests
{
    protected override (IResumableUploadStore Uploads, IObjectStore Files) CreateStores()
    {
        var files = new MemoryObjectStore();
        return (new MemoryResumableUploadStore(files), files);
    }
}
