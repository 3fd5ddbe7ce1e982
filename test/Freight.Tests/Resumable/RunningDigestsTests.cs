using System.IO.Hashing;
using Freight.Digests;
using Freight.Lab.Payload;
using Freight.Resumable;
using Freight.Storage;

namespace Freight.Tests.Resumable;

public sealed class RunningDigestsTests
{
    [Fact]
    public void Take_AtZero_StartsFresh_ThenContinuesWhereKept()
    {
        using var running = new RunningDigests([]);
        var data = DeterministicPayload.Create(10_000, seed: 2);

        var first = running.Take("a", 0)!;
        first.Append(data.AsSpan(0, 4000));
        running.Keep("a", first);
        var second = running.Take("a", 4000)!;
        second.Append(data.AsSpan(4000));

        Assert.Same(first, second);
        Assert.Equal(FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(data)), second.Complete().EntityTag);
        second.Dispose();
    }

    [Fact]
    public void Take_AtAnotherOffset_ForgetsAndReturnsNull()
    {
        using var running = new RunningDigests([]);
        var digests = running.Take("a", 0)!;
        digests.Append(new byte[10]);
        running.Keep("a", digests);

        Assert.Null(running.Take("a", 11));
        Assert.Null(running.Take("a", 10));
    }

    [Fact]
    public async Task Compute_ReadsTheStoredBytes()
    {
        var files = new MemoryObjectStore();
        var uploads = new MemoryResumableUploadStore(files);
        var data = DeterministicPayload.Create(3_000_000, seed: 3);
        var id = ResumableUploadId.New();
        await uploads.CreateAsync(new ResumableUpload { Id = id, Length = data.Length });
        await using (var appender = await uploads.BeginAppendAsync(id, 0))
        {
            await appender.WriteAsync(new System.Buffers.ReadOnlySequence<byte>(data));
        }

        using var running = new RunningDigests([DigestAlgorithm.Sha256]);
        var computed = await running.ComputeAsync(uploads, id, CancellationToken.None);

        Assert.Equal(FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(data)), computed.EntityTag);
        Assert.Equal(System.Security.Cryptography.SHA256.HashData(data), computed.GetDigest(DigestAlgorithm.Sha256));
    }

    [Fact]
    public void Locks_OneHolderAtATime()
    {
        var locks = new ResumableUploadLocks();

        Assert.True(locks.TryEnter("a", out var held));
        Assert.False(locks.TryEnter("a", out _));
        Assert.True(locks.TryEnter("b", out var other));
        held.Dispose();
        Assert.True(locks.TryEnter("a", out var again));
        again.Dispose();
        other.Dispose();
        Assert.False(locks.IsHeld("a"));
    }

    [Fact]
    public void Id_IsThirtyTwoLowerHex_AndOnlyThatIsValid()
    {
        var id = ResumableUploadId.New();

        Assert.Matches("^[0-9a-f]{32}$", id);
        Assert.True(ResumableUploadId.IsValid(id));
        Assert.False(ResumableUploadId.IsValid(id.ToUpperInvariant()));
        Assert.False(ResumableUploadId.IsValid(id[..31]));
        Assert.False(ResumableUploadId.IsValid("../" + id[3..]));
        Assert.NotEqual(id, ResumableUploadId.New());
    }
}
