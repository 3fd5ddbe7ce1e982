using System.Buffers;
using Amazon.S3.Model;
using Freight.Lab.Payload;
using Freight.Storage;
using Freight.Storage.S3;

namespace Freight.Tests.Storage.S3;

/// <summary>
/// The store contract on <see cref="S3ObjectStore"/> against the real RADOS Gateway. Each test gets its own
/// store under a fresh key prefix of one bucket; parts are 5 MiB (S3's floor) so multipart writes stay small.
/// </summary>
[Collection(RgwCollection.Name)]
public sealed class S3ObjectStoreContractTests(RgwServer rgw) : ObjectStoreContractTests, IAsyncLifetime, IDisposable
{
    private readonly List<S3ObjectStore> _stores = [];
    private string _bucket = null!;

    protected override bool ReplacedReadersFail => true;

    public async Task InitializeAsync() => _bucket = await rgw.BucketForAsync(GetType());

    public Task DisposeAsync() => Task.CompletedTask;

    public void Dispose()
    {
        foreach (var store in _stores)
        {
            store.Dispose();
        }
    }

    protected override IObjectStore CreateStore() => CreateS3Store();

    [Fact]
    public override async Task OpenRead_Committed_ExposesFileHandleOrContentWithTheBytes()
    {
        // S3 has neither a local file nor the content in memory: the bytes come as ranged GETs (OpenRangeAsync).
        var store = CreateS3Store();
        var data = DeterministicPayload.Create(12_345, seed: 6);
        await PutAsync(store, "direct.bin", data);

        await using var reader = await store.OpenReadAsync("direct.bin");

        Assert.NotNull(reader);
        Assert.Null(reader.FileHandle);
        Assert.Null(reader.Content);
        await using var range = await reader.OpenRangeAsync(1000, 5000);
        var bytes = new MemoryStream();
        await range.CopyToAsync(bytes);
        Assert.Equal(data.AsSpan(1000, 5000).ToArray(), bytes.ToArray());
    }

    [Fact]
    public override async Task Replace_ReaderOpenedBefore_KeepsOldBytesAndInfo()
    {
        // S3 keeps no old version: a reader of a replaced object fails rather than mix versions.
        var store = CreateS3Store();
        var oldData = DeterministicPayload.Create(200_000, seed: 1);
        var newData = DeterministicPayload.Create(50_000, seed: 2);
        await PutAsync(store, "doc.bin", oldData, new ObjectCommit { ETag = ContentETag(oldData), ContentType = "application/x-old" });
        await using var oldReader = await store.OpenReadAsync("doc.bin");
        Assert.NotNull(oldReader);

        await PutAsync(store, "doc.bin", newData, new ObjectCommit { ETag = ContentETag(newData), ContentType = "application/x-new" });

        await Assert.ThrowsAnyAsync<IOException>(async () => await ReadAllAsync(oldReader));
        Assert.Equal(ContentETag(oldData), oldReader.Info.ETag);
        await using var newReader = await store.OpenReadAsync("doc.bin");
        Assert.NotNull(newReader);
        Assert.Equal(newData, await ReadAllAsync(newReader));
        Assert.Equal("application/x-new", newReader.Info.ContentType);
    }

    [Theory]
    [InlineData(5 * 1024 * 1024 + 1)]
    [InlineData(23 * 1024 * 1024 + 7)]
    public async Task Commit_LargerThanOnePart_MultipartLeavesNoStagedObjectOrUpload(int size)
    {
        var store = CreateS3Store();
        var data = DeterministicPayload.Create(size, seed: 3);

        var info = await PutAsync(store, "big/object.bin", data, new ObjectCommit { ContentType = "application/x-big" });

        Assert.Equal(ContentETag(data), info.ETag);
        Assert.Equal(size, info.Length);
        // The commit answers from the copy's result, no HEAD: the same modification time a HEAD reports.
        Assert.Equal((await store.GetInfoAsync("big/object.bin"))?.LastModified, info.LastModified);
        Assert.Equal(data, await ReadAllAsync(store, "big/object.bin"));
        Assert.Equal(["big/object.bin"], await ListKeysAsync(store, "", 10));
        // The staged object is deleted after the commit has answered.
        await store.StagedObjectsDeletedAsync();
        var prefix = store.Connection.Options.Prefix;
        var everything = await rgw.Client.ListObjectsV2Async(new ListObjectsV2Request { BucketName = _bucket, Prefix = prefix });
        Assert.Equal([prefix + "big/object.bin"], (everything.S3Objects ?? []).Select(o => o.Key));
        Assert.Empty(await MultipartUploadsAsync(prefix));
    }

    [Fact]
    public async Task Dispose_MidMultipart_AbortsTheUploadAndLeavesNoObject()
    {
        var store = CreateS3Store();
        var writer = await store.BeginWriteAsync("aborted.bin");
        await writer.WriteAsync(new ReadOnlySequence<byte>(DeterministicPayload.Create(12 * 1024 * 1024, seed: 4)));
        Assert.NotEmpty(await MultipartUploadsAsync(store.Connection.Options.Prefix));

        await writer.DisposeAsync();

        Assert.Null(await store.GetInfoAsync("aborted.bin"));
        Assert.Empty(await MultipartUploadsAsync(store.Connection.Options.Prefix));
    }

    [Fact]
    public async Task IfNoneExists_MultipartOnExistingKey_ThrowsAndKeepsFirstVersion()
    {
        var store = CreateS3Store();
        var first = DeterministicPayload.Create(100, seed: 5);
        await PutAsync(store, "taken.bin", first);
        var second = DeterministicPayload.Create(6 * 1024 * 1024, seed: 6);

        await using var writer = await store.BeginWriteAsync("taken.bin");
        await writer.WriteAsync(new ReadOnlySequence<byte>(second));
        await Assert.ThrowsAsync<PreconditionFailedException>(async () => await writer.CommitAsync(new ObjectCommit { Condition = new WriteCondition { IfNoneExists = true } }));

        Assert.Equal(first, await ReadAllAsync(store, "taken.bin"));
    }

    [Fact]
    public async Task AddDigests_SecondsLater_KeepsTheVersionsLastModified()
    {
        // S3 dates the metadata-rewriting self-copy anew; adding a digest must not look like a modification.
        var store = CreateS3Store();
        var data = DeterministicPayload.Create(4000, seed: 7);
        var committed = await PutAsync(store, "dated.bin", data, new ObjectCommit { ETag = ContentETag(data) });
        await Task.Delay(TimeSpan.FromSeconds(1.2));

        await store.AddDigestsAsync("dated.bin", committed.ETag, new Dictionary<string, byte[]> { ["sha-256"] = [1, 2] });

        var info = await store.GetInfoAsync("dated.bin");
        Assert.NotNull(info);
        Assert.Equal([1, 2], info.Digests["sha-256"]);
        Assert.Equal(committed.LastModified, info.LastModified);
    }

    [Fact]
    public async Task ObjectWrittenByAnotherTool_DescribedByS3ETagAndType()
    {
        var store = CreateS3Store();
        await rgw.Client.PutObjectAsync(new PutObjectRequest
        {
            BucketName = _bucket,
            Key = store.Connection.Options.Prefix + "foreign.txt",
            ContentBody = "hello",
            ContentType = "text/plain",
        });

        var info = await store.GetInfoAsync("foreign.txt");

        Assert.NotNull(info);
        Assert.Equal("\"5d41402abc4b2a76b9719d911017c592\"", info.ETag);
        Assert.Equal("text/plain", info.ContentType);
        Assert.Equal("hello"u8.ToArray(), await ReadAllAsync(store, "foreign.txt"));
    }

    private async Task<List<string>> MultipartUploadsAsync(string prefix) =>
        [.. ((await rgw.Client.ListMultipartUploadsAsync(new ListMultipartUploadsRequest { BucketName = _bucket, Prefix = prefix })).MultipartUploads ?? []).Select(u => u.Key)];

    private S3ObjectStore CreateS3Store()
    {
        var store = new S3ObjectStore(new S3StoreOptions
        {
            Endpoint = rgw.Endpoint.ToString(),
            Bucket = _bucket,
            AccessKey = RgwServer.AccessKey,
            SecretKey = RgwServer.SecretKey,
            Prefix = $"t{Guid.NewGuid():N}/",
            PartBytes = S3StoreOptions.MinPartBytes,
            PartsInFlight = 2,
        });
        _stores.Add(store);
        return store;
    }
}
