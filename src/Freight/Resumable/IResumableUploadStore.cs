using System.Buffers;
using Freight.Storage;

namespace Freight.Resumable;

/// <summary>
/// Where resumable uploads live between their requests: the record (<see cref="ResumableUpload"/>) and the
/// bytes received so far, in order. Each store is paired with the object store its finished uploads become
/// files in, so completing can move bytes instead of copying them (a rename on a file system, a multipart
/// completion on S3). Serializing writers of one upload is the caller's job (see <see cref="ResumableUploadLocks"/>);
/// the store still refuses an append that does not start at the current end.
/// </summary>
public interface IResumableUploadStore
{
    /// <summary>Stores a new upload's record, with no bytes yet.</summary>
    ValueTask CreateAsync(ResumableUpload upload, CancellationToken cancellationToken = default);

    /// <summary>The upload with its current offset and last activity, or null when there is none.</summary>
    ValueTask<ResumableUpload?> GetAsync(string id, CancellationToken cancellationToken = default);

    /// <summary>Saves a changed record (a length declared late, a completion); the bytes are untouched.</summary>
    ValueTask UpdateAsync(ResumableUpload upload, CancellationToken cancellationToken = default);

    /// <summary>
    /// Opens the upload for appending at <paramref name="offset"/>; throws <see cref="ResumableOffsetConflictException"/>
    /// when that is not where its bytes end.
    /// </summary>
    ValueTask<IResumableUploadAppender> BeginAppendAsync(string id, long offset, CancellationToken cancellationToken = default);

    /// <summary>Reads stored bytes from <paramref name="offset"/>; 0 at the end.</summary>
    ValueTask<int> ReadAsync(string id, long offset, Memory<byte> destination, CancellationToken cancellationToken = default);

    /// <summary>
    /// Makes the upload's bytes the object <paramref name="key"/> of the paired object store, atomically and
    /// with <paramref name="commit"/>'s metadata, and records the completion; the bytes are no longer kept
    /// here. On failure nothing changes: the upload keeps its bytes and can be completed again.
    /// </summary>
    ValueTask<ObjectInfo> CompleteAsync(ResumableUpload upload, string key, ObjectCommit commit, CancellationToken cancellationToken = default);

    /// <summary>Removes the upload: record and bytes (a file it became stays). False when there was none.</summary>
    ValueTask<bool> DeleteAsync(string id, CancellationToken cancellationToken = default);

    /// <summary>Every upload (for the expiry sweep).</summary>
    IAsyncEnumerable<ResumableUpload> ListAsync(CancellationToken cancellationToken = default);

    /// <summary>
    /// Bytes the store can still take — the free space of the volume its bytes go to, the memory left for a
    /// store in memory — or null when it cannot tell (a bucket). Creation quotas weigh declared lengths against it.
    /// </summary>
    long? AvailableBytes();
}

/// <summary>
/// An append to one upload: bytes go straight to the store at the upload's end. Disposing keeps what was
/// written (a request cut off mid-way still moved the upload forward); <see cref="DiscardAsync"/> first
/// takes it all back (a chunk whose checksum failed).
/// </summary>
public interface IResumableUploadAppender : IAsyncDisposable
{
    /// <summary>Where this append started.</summary>
    long StartOffset { get; }

    /// <summary>The upload's end: <see cref="StartOffset"/> plus the bytes written.</summary>
    long Offset { get; }

    /// <summary>Appends <paramref name="data"/> at the upload's current offset.</summary>
    ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken = default);

    /// <summary>Drops every byte this append wrote, back to <see cref="StartOffset"/>.</summary>
    ValueTask DiscardAsync(CancellationToken cancellationToken = default);
}
