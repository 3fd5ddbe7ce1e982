using System.IO.Hashing;
using Freight.Lab.Payload;
using Freight.Resumable;
using Freight.Storage;

namespace Freight.Tests.Resumable;

/// <summary>The contract on <see cref="FileSystemResumableUploadStore"/>, plus what only a disk has: restarts, crashes, renames.</summary>
public sealed class FileSystemResumableUploadStoreTests : ResumableUploadStoreContractTests, IDisposable
{
    private readonly TempDirectory _dir = new();

    private string UploadsDirectory => _dir.Combine("tus");

    private string FilesDirectory => _dir.Combine("files");

    protected override (IResumableUploadStore Uploads, IObjectStore Files) CreateStores()
    {
        var files = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = FilesDirectory });
        return (new FileSystemResumableUploadStore(UploadsDirectory, files), files);
    }

    /// <summary>The same directories opened again: what a restarted server sees.</summary>
    private FileSystemResumableUploadStore Reopen(out FileSystemObjectStore files)
    {
        files = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = FilesDirectory });
        return new FileSystemResumableUploadStore(UploadsDirectory, files);
    }

    [Fact]
    public async Task Create_ReservesTheLength_WithoutMovingTheOffset()
    {
        var (uploads, _) = CreateStores();
        var upload = NewUpload(64L * 1024 * 1024);

        await uploads.CreateAsync(upload);

        Assert.Equal(0, new FileInfo(((FileSystemResumableUploadStore)uploads).DataPath(upload.Id)).Length);
        Assert.Equal(0, (await uploads.GetAsync(upload.Id))!.Offset);
    }

    [Fact]
    public async Task Restart_SeesTheSameUploadAndOffset_AndCanFinishIt()
    {
        var (uploads, _) = CreateStores();
        var data = DeterministicPayload.Create(200_000, seed: 8);
        var upload = NewUpload(data.Length);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, data.AsMemory(0, 77_777));

        var reopened = Reopen(out var files);
        var found = await reopened.GetAsync(upload.Id);
        Assert.Equal(77_777, found!.Offset);
        Assert.Equal(upload.Metadata, found.Metadata);
        await AppendAsync(reopened, upload.Id, 77_777, data.AsMemory(77_777));
        var etag = FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(data));
        await reopened.CompleteAsync((await reopened.GetAsync(upload.Id))!, "done.bin", new ObjectCommit { ETag = etag });

        Assert.Equal(data, await File.ReadAllBytesAsync(files.GetPath("done.bin")));
        Assert.Equal(etag, (await files.GetInfoAsync("done.bin"))!.ETag);
    }

    [Fact]
    public async Task Complete_RenamesTheBytes_NoCopyLeftBehind()
    {
        var (uploads, _) = CreateStores();
        var upload = NewUpload(5);
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, new byte[] { 1, 2, 3, 4, 5 });
        var dataPath = ((FileSystemResumableUploadStore)uploads).DataPath(upload.Id);
        var inode = new FileInfo(dataPath).LastWriteTimeUtc;

        await uploads.CompleteAsync((await uploads.GetAsync(upload.Id))!, "done.bin", new ObjectCommit { ETag = "\"x\"" });

        Assert.False(File.Exists(dataPath));
        // A rename keeps the modification time; a copy would not.
        Assert.Equal(inode, File.GetLastWriteTimeUtc(Path.Combine(FilesDirectory, "done.bin")));
        Assert.Equal([upload.Id + ".json"], Directory.GetFiles(UploadsDirectory).Select(Path.GetFileName));
    }

    [Fact]
    public async Task Complete_OntoAFolder_FailsAndKeepsTheBytes()
    {
        var (uploads, files) = CreateStores();
        var data = DeterministicPayload.Create(1000, seed: 9);
        await PutAsync(files, "taken/inner.bin");
        var upload = NewUpload(data.Length, "taken");
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, data);

        await Assert.ThrowsAsync<KeyConflictException>(async () =>
            await uploads.CompleteAsync((await uploads.GetAsync(upload.Id))!, "taken", new ObjectCommit { ETag = "\"x\"" }));

        var found = await uploads.GetAsync(upload.Id);
        Assert.Null(found!.Completion);
        Assert.Equal(data, await ReadAllAsync(uploads, upload.Id));
        Assert.Empty(Directory.GetFiles(FilesDirectory, "*" + FileSystemObjectStore.TempSuffix, SearchOption.AllDirectories));
    }

    [Fact]
    public async Task Recover_FinishesACompletionACrashInterrupted()
    {
        var (uploads, _) = CreateStores();
        var data = DeterministicPayload.Create(4096, seed: 10);
        var upload = NewUpload(data.Length, "late.bin");
        await uploads.CreateAsync(upload);
        await AppendAsync(uploads, upload.Id, 0, data);
        var etag = FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(data));
        // What a crash between saving the completion and the move leaves: the record says done, the bytes are still here.
        await uploads.UpdateAsync((await uploads.GetAsync(upload.Id))! with
        {
            Completion = new ResumableCompletion("late.bin", etag, "text/plain", null, DateTimeOffset.UtcNow),
        });

        var reopened = Reopen(out var files);
        Assert.Equal(1, await reopened.RecoverAsync());

        Assert.Equal(data, await File.ReadAllBytesAsync(files.GetPath("late.bin")));
        var info = await files.GetInfoAsync("late.bin");
        Assert.Equal(etag, info!.ETag);
        Assert.Equal("text/plain", info.ContentType);
        Assert.False(File.Exists(reopened.DataPath(upload.Id)));
        Assert.Equal(0, await reopened.RecoverAsync());
    }

    [Fact]
    public async Task Recover_RemovesBytesWithoutARecord_AndTempFiles()
    {
        var (uploads, _) = CreateStores();
        var upload = NewUpload(10);
        await uploads.CreateAsync(upload);
        var stray = Path.Combine(UploadsDirectory, ResumableUploadId.New() + ".bin");
        await File.WriteAllBytesAsync(stray, [1, 2]);
        var temp = Path.Combine(UploadsDirectory, ".abc" + FileSystemObjectStore.TempSuffix);
        await File.WriteAllBytesAsync(temp, [1]);

        await Reopen(out _).RecoverAsync();

        Assert.False(File.Exists(stray));
        Assert.False(File.Exists(temp));
        Assert.NotNull(await uploads.GetAsync(upload.Id));
    }

    private static async Task PutAsync(IObjectStore store, string key)
    {
        await using var writer = await store.BeginWriteAsync(key);
        await writer.WriteAsync(new byte[] { 1 });
        await writer.CommitAsync(ObjectCommit.Unconditional);
    }

    public void Dispose() => _dir.Dispose();
}
