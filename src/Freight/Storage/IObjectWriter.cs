using System.Buffers;

namespace Freight.Storage;

/// <summary>
/// A streaming write session: bytes go in as they arrive, then <see cref="CommitAsync(ObjectCommit, CancellationToken)"/>
/// makes the object visible whole, atomically. Disposing a writer that was not committed aborts it and
/// leaves nothing behind: no partial object, no temp file. Shaped so a file system (temp + rename),
/// memory, or an object store (multipart upload) can implement it.
/// </summary>
public interface IObjectWriter : IAsyncDisposable
{
    /// <summary>The object's key (its normalized path in the store).</summary>
    string Key { get; }

    /// <summary>Bytes written so far.</summary>
    long Length { get; }

    /// <summary>Appends <paramref name="data"/>. The caller may reuse the memory once the task completes.</summary>
    ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken = default);

    /// <summary>Appends <paramref name="data"/>. The caller may reuse the memory once the task completes.</summary>
    ValueTask WriteAsync(ReadOnlyMemory<byte> data, CancellationToken cancellationToken = default);

    /// <summary>
    /// Makes the object visible with <paramref name="commit"/>'s metadata, replacing any previous version
    /// (last complete write wins), if its condition holds at that moment; otherwise throws
    /// <see cref="PreconditionFailedException"/> and the store is unchanged (dispose the writer to clean up).
    /// </summary>
    ValueTask<ObjectInfo> CommitAsync(ObjectCommit commit, CancellationToken cancellationToken = default);

    /// <summary>Commits unconditionally, without metadata (the store derives an ETag when first asked).</summary>
    async ValueTask CommitAsync(CancellationToken cancellationToken = default) => await CommitAsync(ObjectCommit.Unconditional, cancellationToken);
}
