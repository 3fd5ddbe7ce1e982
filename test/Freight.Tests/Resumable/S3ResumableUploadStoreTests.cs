using System.Buffers;
using Amazon.S3.Model;
using Freight.Lab.Payload;
using Freight.Resumable;
using Freight.Storage;
using Freight.Storage.S3;
using Freight.Tests.Storage.S3;

namespace Freight.Tests.Resumable;

/// <summary>
/// The resumable-store contract on <see cref="S3ResumableUploadStore"/> against the real RADOS Gateway, plus what
/// only S3 has: parts of at least 5 MiB behind a tail kept in the state object, and several nodes sharing one
/// bucket. Each store gets a fresh key prefix; parts are 5 MiB.
/// </summary>
[Collection(RgwCollection.Name)]
public sealed class S3ResumableUploadStoreTests(RgwServer rgw) : ResumableUploadStoreContractTests, IAsyncLifetime, IDisposable
{
    private const int MiB = 1024 * 1024;
    private readonly List<S3ObjectStore> _stores = [];
    private string _bucket = null!;

    public async Task InitializeAsync() => _bucket = await rgw.BucketForAsync(GetType());

    public Task DisposeAsync() => Task.CompletedTask;

    public void Dispose()
    {
        foreach (var store in _stores)
        {
            store.Dispose();
        }
    }

    protected override (IResumableUploadStore Uploads, IObjectStore Files) CreateStores()
    {
        var files = CreateObjectStore($"t{Guid.NewGuid():N}/");
        return (new S3ResumableUploadStore(files), files);
    }

    [Fact]
    public async Task Appends_AcrossPartBoundaries_OffsetsFollowAndCompletionHasEveryByte()
    {
        var files = CreateObjectStore($"t{Guid.NewGuid():N}/");
        var uploads = new S3ResumableUploadStore(files);
        var data = DeterministicPayload.Create(12 * MiB + 3, seed: 7);
        var upload = NewUpload(data.Length);
        await uploads.CreateAsync(upload);

        // 1 MiB (tail only), 7 MiB (tail + bytes → one 5 MiB part, 3 MiB tail), the rest (another part, then a tail).
        long offset = 0;
        foreach (var size in new[] { MiB, 7 * MiB, 4 * MiB + 3 })
        {
            await AppendAsync(uploads, upload.Id, offset, data.AsMemory((int)offset, size));
            offset += size;
            Assert.Equal(offset, (await uploads.GetAsync(upload.Id))!.Offset);
        }

        var etag = ContentETag(data);
        var info = await uploads.CompleteAsync((await uploads.GetAsync(upload.Id))!, "done.bin", new ObjectCommit { ETag = etag });

        Assert.Equal(etag, info.ETag);
        Assert.Equal(data, await ReadObjectAsync(files, "done.bin"));
        Assert.NotNull((await uploads.GetAsync(upload.Id))!.Completion);
        Assert.Empty(await MultipartUploadsAsync(files));
        Assert.Equal([files.Connection.Options.Prefix + ".freight/tus/" + upload.Id, files.Connection.Options.Prefix + "done.bin"], await ObjectKeysAsync(files));
    }

    [Fact]
    public async Task TwoNodes_AppendsAlternate_EachSeesTheOthersOffsetAndBytes()
    {
        var prefix = $"t{Guid.NewGuid():N}/";
        var nodeA = new S3ResumableUploadStore(CreateObjectStore(prefix));
        var filesB = CreateObjectStore(prefix);
        var nodeB = new S3ResumableUploadStore(filesB);
        var data = DeterministicPayload.Create(11 * MiB + 5, seed: 8);
        var upload = NewUpload(data.Length);
        await nodeA.CreateAsync(upload);

        await AppendAsync(nodeA, upload.Id, 0, data.AsMemory(0, 2 * MiB));
        Assert.Equal(2 * MiB, (await nodeB.GetAsync(upload.Id))!.Offset);
        await AppendAsync(nodeB, upload.Id, 2 * MiB, data.AsMemory(2 * MiB, 6 * MiB));
        Assert.Equal(8 * MiB, (await nodeA.GetAsync(upload.Id))!.Offset);
        await AppendAsync(nodeA, upload.Id, 8 * MiB, data.AsMemory(8 * MiB));

        Assert.Equal(data, await ReadAllAsync(nodeB, upload.Id));
        await nodeB.CompleteAsync((await nodeB.GetAsync(upload.Id))!, "joined.bin", new ObjectCommit { ETag = ContentETag(data) });
        Assert.Equal(data, await ReadObjectAsync(filesB, "joined.bin"));
    }

    [Fact]
    public async Task TwoAppendsFromOneOffset_TheSecondToSaveConflictsAndTheFirstStays()
    {
        var prefix = $"t{Guid.NewGuid():N}/";
        var nodeA = new S3ResumableUploadStore(CreateObjectStore(prefix));
        var nodeB = new S3ResumableUploadStore(CreateObjectStore(prefix));
        var upload = NewUpload(1000);
        await nodeA.CreateAsync(upload);

        var first = await nodeA.BeginAppendAsync(upload.Id, 0);
        var second = await nodeB.BeginAppendAsync(upload.Id, 0);
        await first.WriteAsync(new ReadOnlySequence<byte>(new byte[100]));
        await second.WriteAsync(new ReadOnlySequence<byte>(new byte[200]));
        await first.DisposeAsync();

        await Assert.ThrowsAsync<ResumableOffsetConflictException>(async () => await second.DisposeAsync());
        Assert.Equal(100, (await nodeB.GetAsync(upload.Id))!.Offset);
    }

    [Fact]
    public async Task Discard_AfterAPartWentUp_BackToTheStartAndTheBytesStillJoinRight()
    {
        var files = CreateObjectStore($"t{Guid.NewGuid():N}/");
        var uploads = new S3ResumableUploadStore(files);
        var data = DeterministicPayload.Create(9 * MiB, seed: 9);
        var upload = NewUpload(data.Length);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, data.AsMemory(0, 3 * MiB));

        await using (var appender = await uploads.BeginAppendAsync(upload.Id, 3 * MiB))
        {
            await appender.WriteAsync(new ReadOnlySequence<byte>(new byte[4 * MiB]));
            await appender.DiscardAsync();
        }

        Assert.Equal(3 * MiB, (await uploads.GetAsync(upload.Id))!.Offset);
        await AppendAsync(uploads, upload.Id, 3 * MiB, data.AsMemory(3 * MiB));
        await uploads.CompleteAsync((await uploads.GetAsync(upload.Id))!, "kept.bin", new ObjectCommit { ETag = ContentETag(data) });
        Assert.Equal(data, await ReadObjectAsync(files, "kept.bin"));
    }

    [Fact]
    public async Task OneAppend_OfManyParts_TheyGoUpTwoAtATimeAndEveryByteJoinsInOrder()
    {
        var files = CreateObjectStore($"t{Guid.NewGuid():N}/");
        var uploads = new S3ResumableUploadStore(files);
        var data = DeterministicPayload.Create(27 * MiB + 3, seed: 12);
        var upload = NewUpload(data.Length);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, data.AsMemory(0, 2 * MiB));

        // Five parts from one append (the stored tail first), written in 1 MiB pieces as a request body arrives.
        await using (var appender = await uploads.BeginAppendAsync(upload.Id, 2 * MiB))
        {
            for (var offset = 2 * MiB; offset < data.Length; offset += MiB)
            {
                await appender.WriteAsync(new ReadOnlySequence<byte>(data.AsMemory(offset, Math.Min(MiB, data.Length - offset))));
            }
        }

        Assert.Equal(data.Length, (await uploads.GetAsync(upload.Id))!.Offset);
        await uploads.CompleteAsync((await uploads.GetAsync(upload.Id))!, "many.bin", new ObjectCommit { ETag = ContentETag(data) });
        Assert.Equal(data, await ReadObjectAsync(files, "many.bin"));
        Assert.Empty(await MultipartUploadsAsync(files));
    }

    [Fact]
    public async Task APartThatFails_FailsTheAppendAndTheOffsetStaysAtTheLastSavedPart()
    {
        var files = CreateObjectStore($"t{Guid.NewGuid():N}/");
        var uploads = new S3ResumableUploadStore(files);
        var upload = NewUpload(40 * MiB);
        await uploads.CreateAsync(upload);
        var appender = await uploads.BeginAppendAsync(upload.Id, 0);
        await appender.WriteAsync(new ReadOnlySequence<byte>(new byte[5 * MiB]));
        Assert.True(await EventuallyAsync(async () => (await uploads.GetAsync(upload.Id))!.Offset == 5 * MiB), "the first part was never saved");

        // The multipart upload vanishes under the append: its next part cannot go up.
        var staged = (await rgw.Client.ListMultipartUploadsAsync(new ListMultipartUploadsRequest { BucketName = _bucket, Prefix = files.Connection.Options.Prefix })).MultipartUploads.Single();
        await rgw.Client.AbortMultipartUploadAsync(_bucket, staged.Key, staged.UploadId);

        // The write fails if the part already did, else the append's end does: never both succeed.
        var writeFailed = await Record.ExceptionAsync(async () => await appender.WriteAsync(new ReadOnlySequence<byte>(new byte[11 * MiB])));
        var endFailed = await Record.ExceptionAsync(async () => await appender.DisposeAsync());

        Assert.True(writeFailed is not null || endFailed is not null, "the append ended as if every part went up");
        Assert.Equal(5 * MiB, (await uploads.GetAsync(upload.Id))!.Offset);
    }

    [Fact]
    public async Task Discard_OfTheAppendThatBeganTheMultipartUpload_KeepsItNamedSoDeleteAbortsIt()
    {
        var files = CreateObjectStore($"t{Guid.NewGuid():N}/");
        var uploads = new S3ResumableUploadStore(files);
        var upload = NewUpload(20 * MiB);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, new byte[3 * MiB]);
        await using (var appender = await uploads.BeginAppendAsync(upload.Id, 3 * MiB))
        {
            await appender.WriteAsync(new ReadOnlySequence<byte>(new byte[4 * MiB]));
            await appender.DiscardAsync();
        }

        Assert.Equal(3 * MiB, (await uploads.GetAsync(upload.Id))!.Offset);
        Assert.True(await uploads.DeleteAsync(upload.Id));

        Assert.Empty(await MultipartUploadsAsync(files));
    }

    [Fact]
    public async Task Delete_Unfinished_AbortsItsMultipartUploadAndRemovesItsState()
    {
        var files = CreateObjectStore($"t{Guid.NewGuid():N}/");
        var uploads = new S3ResumableUploadStore(files);
        var upload = NewUpload(20 * MiB);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, DeterministicPayload.Create(6 * MiB, seed: 10));
        Assert.NotEmpty(await MultipartUploadsAsync(files));

        Assert.True(await uploads.DeleteAsync(upload.Id));

        Assert.Empty(await MultipartUploadsAsync(files));
        Assert.Empty(await ObjectKeysAsync(files));
    }

    [Fact]
    public async Task SweepAbandoned_RemovesOrphanedAndStagedUploadsButKeepsOnesAStateNames()
    {
        var files = CreateObjectStore($"t{Guid.NewGuid():N}/");
        var uploads = new S3ResumableUploadStore(files);
        var live = NewUpload(20 * MiB);
        await uploads.CreateAsync(live);
        await AppendAsync(uploads, live.Id, 0, DeterministicPayload.Create(6 * MiB, seed: 11));
        var prefix = files.Connection.Options.Prefix;
        // What a node that stopped mid-way leaves: a tus multipart upload no state names, a staged PUT's upload and object.
        await rgw.Client.InitiateMultipartUploadAsync(_bucket, $"{prefix}.freight/tus/{ResumableUploadId.New()}.bin");
        await rgw.Client.InitiateMultipartUploadAsync(_bucket, $"{prefix}.freight/staging/{Guid.NewGuid():N}");
        await rgw.Client.PutObjectAsync(new PutObjectRequest { BucketName = _bucket, Key = $"{prefix}.freight/staging/{Guid.NewGuid():N}", ContentBody = "left" });

        // A negative age: everything counts as old, so only "named by a state" protects an upload.
        var removed = await uploads.SweepAbandonedAsync(TimeSpan.FromMinutes(-1));

        Assert.Equal(3, removed);
        Assert.Equal([$"{prefix}.freight/tus/{live.Id}.bin"], await MultipartUploadsAsync(files));
        Assert.Equal([$"{prefix}.freight/tus/{live.Id}"], await ObjectKeysAsync(files));
        await AppendAsync(uploads, live.Id, 6 * MiB, new byte[14 * MiB]);
        Assert.True((await uploads.GetAsync(live.Id))!.HasAllBytes);
    }

    /// <summary>A bounded wait for something the store does in the background, not a timing assertion.</summary>
    private static async Task<bool> EventuallyAsync(Func<Task<bool>> condition)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(20);
        while (!await condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            await Task.Delay(50);
        }

        return true;
    }

    private static string ContentETag(byte[] data) => FileSystemObjectStore.FormatETag(System.IO.Hashing.XxHash128.HashToUInt128(data));

    private static async Task<byte[]> ReadObjectAsync(IObjectStore files, string key)
    {
        await using var reader = await files.OpenReadAsync(key);
        Assert.NotNull(reader);
        await using var stream = await reader.OpenRangeAsync(0, reader.Info.Length);
        var bytes = new MemoryStream();
        await stream.CopyToAsync(bytes);
        return bytes.ToArray();
    }

    private async Task<List<string>> MultipartUploadsAsync(S3ObjectStore files) =>
        [.. ((await rgw.Client.ListMultipartUploadsAsync(new ListMultipartUploadsRequest { BucketName = _bucket, Prefix = files.Connection.Options.Prefix })).MultipartUploads ?? []).Select(u => u.Key)];

    private async Task<List<string>> ObjectKeysAsync(S3ObjectStore files) =>
        [.. ((await rgw.Client.ListObjectsV2Async(new ListObjectsV2Request { BucketName = _bucket, Prefix = files.Connection.Options.Prefix })).S3Objects ?? []).Select(o => o.Key).Order(StringComparer.Ordinal)];

    private S3ObjectStore CreateObjectStore(string prefix)
    {
        var store = new S3ObjectStore(new S3StoreOptions
        {
            Endpoint = rgw.Endpoint.ToString(),
            Bucket = _bucket,
            AccessKey = RgwServer.AccessKey,
            SecretKey = RgwServer.SecretKey,
            Prefix = prefix,
            PartBytes = S3StoreOptions.MinPartBytes,
            PartsInFlight = 2,
        });
        _stores.Add(store);
        return store;
    }
}
