using Freight.Downloads;
using Freight.Lab.Payload;

namespace Freight.Tests.Downloads;

/// <summary>
/// Files too large to cache whole are kept open by <see cref="FileCache"/> between requests (up to
/// <see cref="FileCacheOptions.MaxOpenFiles"/>): later requests borrow the handle, a changed file is never served from
/// the old one, and a handle let go while a request still sends from it stays open until that request is done.
/// </summary>
public sealed class FileCacheOpenFilesTests : IDisposable
{
    private const int Large = 200_000;

    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private static FileCache Cache(int maxOpenFiles = 1_000, TimeSpan? revalidateAfter = null) =>
        new(new FileCacheOptions { MaxOpenFiles = maxOpenFiles, RevalidateAfter = revalidateAfter ?? TimeSpan.FromHours(1) });

    private string Write(string name, byte[] content)
    {
        var path = _dir.Combine(name);
        File.WriteAllBytes(path, content);
        return path;
    }

    private static byte[] ReadAll(FileLease lease, int length)
    {
        var bytes = new byte[length];
        Assert.Equal(length, RandomAccess.Read(lease.File!, bytes, 0));
        return bytes;
    }

    [Fact]
    public void TryDescribe_LargeFileTwice_TheSecondBorrowsTheHandleTheFirstOpened()
    {
        var content = DeterministicPayload.Create(Large);
        var path = Write("a.bin", content);
        var cache = Cache();

        var first = FileResponder.TryDescribe(cache, path, out var firstLease);
        var firstFile = firstLease.File;
        firstLease.Dispose();
        var second = FileResponder.TryDescribe(cache, path, out var secondLease);

        using (secondLease)
        {
            Assert.NotNull(first);
            Assert.Same(first, second);
            Assert.Same(firstFile, secondLease.File);
            Assert.False(secondLease.File!.IsClosed);
            Assert.Equal(content, ReadAll(secondLease, Large));
            Assert.Equal(1, cache.OpenFiles);
        }
    }

    [Fact]
    public void TryDescribe_SmallFile_KeepsItsContentAndClosesTheFile()
    {
        var path = Write("small.bin", DeterministicPayload.Create(4096));
        var cache = Cache();

        FileResponder.TryDescribe(cache, path, out var opening);
        var opened = opening.File!;
        opening.Dispose();
        var representation = FileResponder.TryDescribe(cache, path, out var lease);

        Assert.True(opened.IsClosed);
        Assert.NotNull(representation?.Content);
        Assert.Null(lease.File);
        Assert.Equal(0, cache.OpenFiles);
    }

    [Fact]
    public void TryDescribe_PastMaxOpenFiles_TheRequestOwnsAndClosesItsHandle()
    {
        var a = Write("a.bin", DeterministicPayload.Create(Large));
        var b = Write("b.bin", DeterministicPayload.Create(Large + 1));
        var cache = Cache(maxOpenFiles: 1);

        FileResponder.TryDescribe(cache, a, out var keptLease);
        keptLease.Dispose();
        FileResponder.TryDescribe(cache, b, out var ownLease);
        var own = ownLease.File!;
        ownLease.Dispose();

        Assert.Equal(1, cache.OpenFiles);
        Assert.True(own.IsClosed);
        Assert.False(keptLease.File!.IsClosed);
    }

    [Fact]
    public void TryDescribe_MaxOpenFilesZero_KeepsNone()
    {
        var path = Write("a.bin", DeterministicPayload.Create(Large));
        var cache = Cache(maxOpenFiles: 0);

        FileResponder.TryDescribe(cache, path, out var lease);
        var file = lease.File!;
        lease.Dispose();

        Assert.Equal(0, cache.OpenFiles);
        Assert.True(file.IsClosed);
    }

    /// <summary>A large file the cache keeps open after one request, and a second request borrowing it (not yet done).</summary>
    private (FileCache Cache, string Path, byte[] Content, FileLease Sending) KeptAndBorrowed()
    {
        var content = DeterministicPayload.Create(Large);
        var path = Write("a.bin", content);
        var cache = Cache();
        FileResponder.TryDescribe(cache, path, out var opening);
        opening.Dispose();
        FileResponder.TryDescribe(cache, path, out var sending);
        return (cache, path, content, sending);
    }

    /// <summary>The cache has let its handle go, yet the request still reads its bytes; the handle closes when the request is done.</summary>
    private static void AssertLetGoButOpenUntilTheRequestEnds(FileCache cache, FileLease sending, byte[] content)
    {
        Assert.Equal(0, cache.OpenFiles);
        Assert.Equal(content, ReadAll(sending, Large));
        var file = sending.File!;
        sending.Dispose();
        Assert.True(file.IsClosed);
    }

    [Fact]
    public void Invalidate_WhileARequestSends_ClosesTheHandleOnlyAfterIt()
    {
        var (cache, path, content, sending) = KeptAndBorrowed();

        cache.Invalidate(path);

        AssertLetGoButOpenUntilTheRequestEnds(cache, sending, content);
    }

    [Fact]
    public void TryDescribe_FileRenamedOverWithTheSameLengthAndTime_ServesTheNewFileNotTheKeptHandle()
    {
        var path = Write("a.bin", DeterministicPayload.Create(Large));
        var time = File.GetLastWriteTimeUtc(path);
        var cache = Cache(revalidateAfter: TimeSpan.Zero);
        FileResponder.TryDescribe(cache, path, out var old);
        var oldFile = old.File!;
        old.Dispose();

        // Another file, same length and modification time, renamed into place: only the inode tells them apart.
        var replacement = new byte[Large];
        new Random(5).NextBytes(replacement);
        var temp = Write("a.bin.new", replacement);
        File.SetLastWriteTimeUtc(temp, time);
        File.Move(temp, path, overwrite: true);
        FileResponder.TryDescribe(cache, path, out var current);

        using (current)
        {
            Assert.Equal(replacement, ReadAll(current, Large));
            Assert.True(oldFile.IsClosed);
            Assert.Equal(1, cache.OpenFiles);
        }
    }

    [Fact]
    public void CloseIdleFiles_ClosesKeptFilesNotConfirmedLately_AfterTheirLastRequest()
    {
        var (cache, path, content, sending) = KeptAndBorrowed();

        cache.CloseIdleFiles(idleTicks: -1);

        AssertLetGoButOpenUntilTheRequestEnds(cache, sending, content);

        // The entry stays: the next request opens the file again and the cache keeps that one.
        FileResponder.TryDescribe(cache, path, out var again);
        using (again)
        {
            Assert.Equal(content, ReadAll(again, Large));
            Assert.Equal(1, cache.OpenFiles);
        }
    }

    [Fact]
    public void TryDescribe_FileDeleted_IsNullAndClosesTheKeptFile()
    {
        var path = Write("a.bin", DeterministicPayload.Create(Large));
        var cache = Cache(revalidateAfter: TimeSpan.Zero);
        FileResponder.TryDescribe(cache, path, out var opening);
        var kept = opening.File!;
        opening.Dispose();

        File.Delete(path);

        Assert.Null(FileResponder.TryDescribe(cache, path, out var none));
        Assert.Null(none.File);
        Assert.True(kept.IsClosed);
        Assert.Equal(0, cache.OpenFiles);
        Assert.Equal(0, cache.Count);
    }
}
