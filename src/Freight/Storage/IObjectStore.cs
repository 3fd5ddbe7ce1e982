namespace Freight.Storage;

/// <summary>
/// Where objects live: a file system (<see cref="FileSystemObjectStore"/>) or memory
/// (<see cref="MemoryObjectStore"/>); shaped for S3 too (streaming writes that commit atomically or leave
/// nothing, reads by range, metadata with the object). Keys are validated, '/'-separated relative paths.
/// </summary>
public interface IObjectStore
{
    /// <summary>
    /// Starts a write session for <paramref name="key"/>; nothing is visible until it commits.
    /// <paramref name="expectedLength"/>, when known (a request's Content-Length), lets the store reserve
    /// the space up front.
    /// </summary>
    ValueTask<IObjectWriter> BeginWriteAsync(string key, long? expectedLength = null, CancellationToken cancellationToken = default);

    /// <summary>The object's metadata, or null when there is none. Derives an ETag (a content hash) once when none is stored.</summary>
    ValueTask<ObjectInfo?> GetInfoAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>Opens the current version for reading, or null when there is none.</summary>
    ValueTask<IObjectReader?> OpenReadAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>
    /// Deletes the object if <paramref name="condition"/> holds; false when there was none. Throws
    /// <see cref="PreconditionFailedException"/> when it exists and the condition fails.
    /// </summary>
    ValueTask<bool> DeleteAsync(string key, WriteCondition? condition = null, CancellationToken cancellationToken = default);

    /// <summary>Up to <paramref name="limit"/> objects whose key starts with <paramref name="prefix"/>, after <paramref name="cursor"/>.</summary>
    ValueTask<ObjectPage> ListAsync(string prefix, int limit, string? cursor = null, CancellationToken cancellationToken = default);

    /// <summary>Adds digests computed later (e.g. for Want-Repr-Digest) if the object is still the version tagged <paramref name="etag"/>.</summary>
    ValueTask AddDigestsAsync(string key, string etag, IReadOnlyDictionary<string, byte[]> digests, CancellationToken cancellationToken = default);
}
