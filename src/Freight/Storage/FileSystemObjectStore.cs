using System.Buffers;
using Freight.Hashing;
using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>
/// Stores objects as files under a root directory, metadata in a hidden sidecar beside each file
/// (<see cref="FileSystemMetadata"/>). A write goes to a hidden temp file in the target's own directory
/// (same file system, so the final rename is atomic) and is renamed into place on commit; an abort
/// deletes the temp file. Conditions are checked and applied under a per-key lock: one process owns a
/// data directory.
/// </summary>
public sealed class FileSystemObjectStore : IObjectStore
{
    /// <summary>Suffix of in-progress writes; files with it are never served and are swept at start.</summary>
    public const string TempSuffix = ".freight-tmp";

    private readonly FileSystemStoreOptions _options;
    private readonly KeyLocks _locks = new();

    public FileSystemObjectStore(FileSystemStoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options;
        RootDirectory = Path.GetFullPath(options.RootDirectory);
        Directory.CreateDirectory(RootDirectory);
    }

    /// <summary>The absolute root directory.</summary>
    public string RootDirectory { get; }

    /// <summary>Maps a key (already validated, '/'-separated, relative) to its absolute path.</summary>
    public string GetPath(string key) => Path.Combine(RootDirectory, key.Replace('/', Path.DirectorySeparatorChar));

    public ValueTask<IObjectWriter> BeginWriteAsync(string key, long? expectedLength = null, CancellationToken cancellationToken = default)
    {
        var path = GetPath(key);
        if (Directory.Exists(path))
        {
            throw new KeyConflictException($"'{key}' is a folder of other files; a file cannot take its name.");
        }

        var directory = Path.GetDirectoryName(path)!;
        var created = CreateDirectories(key, directory);
        // ".{guid}.freight-tmp": short, so a name at the key's 240-byte limit still leaves room.
        var tempPath = Path.Combine(directory, $".{Guid.NewGuid():N}{TempSuffix}");
        try
        {
            IObjectWriter writer;
            try
            {
                writer = new FileSystemObjectWriter(this, key, path, tempPath, _options.FlushToDisk, expectedLength ?? 0, created);
            }
            catch (DirectoryNotFoundException)
            {
                // A delete emptied and removed the folder between its creation and the temp file: make it again, once.
                created.AddRange(CreateDirectories(key, directory));
                writer = new FileSystemObjectWriter(this, key, path, tempPath, _options.FlushToDisk, expectedLength ?? 0, created);
            }

            return ValueTask.FromResult(writer);
        }
        catch
        {
            RemoveEmptyDirectories(created);
            throw;
        }
    }

    /// <summary>
    /// Makes the finished file at <paramref name="sourcePath"/> the object <paramref name="key"/>, as a commit
    /// would: moved to a temp name beside the key (a rename on the same file system; .NET copies across
    /// file systems), then committed under the key's lock. On failure the file is moved back, unchanged.
    /// </summary>
    public async ValueTask<ObjectInfo> CommitFileAsync(string key, string sourcePath, ObjectCommit commit, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(commit);
        var path = GetPath(key);
        if (Directory.Exists(path))
        {
            throw new KeyConflictException($"'{key}' is a folder of other files; a file cannot take its name.");
        }

        var directory = Path.GetDirectoryName(path)!;
        var created = CreateDirectories(key, directory);
        var tempPath = Path.Combine(directory, $".{Guid.NewGuid():N}{TempSuffix}");
        File.Move(sourcePath, tempPath);
        try
        {
            FileVersion version;
            using (var moved = File.OpenHandle(tempPath, FileMode.Open, FileAccess.Read))
            {
                // After the move: a move across file systems is a copy, a new inode.
                version = FileVersion.Of(moved);
            }

            return await CommitAsync(key, path, tempPath, commit, version, describe: true, cancellationToken)
                ?? throw new IOException($"'{key}' vanished right after its commit.");
        }
        catch
        {
            File.Move(tempPath, sourcePath);
            RemoveEmptyDirectories(created);
            throw;
        }
    }

    /// <summary>Creates the folders a key needs; returns the ones it created, deepest last, so an abort can remove them.</summary>
    private List<string> CreateDirectories(string key, string directory)
    {
        var missing = new List<string>();
        for (var current = directory; current.Length > RootDirectory.Length && !Directory.Exists(current); current = Path.GetDirectoryName(current)!)
        {
            if (File.Exists(current))
            {
                throw new KeyConflictException($"'{key}' would be inside '{Path.GetRelativePath(RootDirectory, current).Replace(Path.DirectorySeparatorChar, '/')}', which is a file.");
            }

            missing.Add(current);
        }

        missing.Reverse();
        try
        {
            foreach (var folder in missing)
            {
                Directory.CreateDirectory(folder);
            }
        }
        catch (IOException collided)
        {
            RemoveEmptyDirectories(missing);
            throw new KeyConflictException($"'{key}' collides with a file on its path.", collided);
        }

        return missing;
    }

    /// <summary>Removes <paramref name="folders"/> (deepest last in the list) that are empty; a folder another write filled meanwhile stays.</summary>
    internal static void RemoveEmptyDirectories(IReadOnlyList<string> folders)
    {
        for (var i = folders.Count - 1; i >= 0; i--)
        {
            try
            {
                Directory.Delete(folders[i]);
            }
            catch (Exception kept) when (kept is IOException or UnauthorizedAccessException)
            {
                // Not empty (another upload arrived) or gone: leave it and its parents.
                return;
            }
        }
    }

    /// <summary>After a delete, the folders left empty between the file and the root (a file may later take their name).</summary>
    private void RemoveEmptyParents(string path)
    {
        var parents = new List<string>();
        for (var current = Path.GetDirectoryName(path)!; current.Length > RootDirectory.Length; current = Path.GetDirectoryName(current)!)
        {
            parents.Insert(0, current);
        }

        RemoveEmptyDirectories(parents);
    }

    public ValueTask<ObjectInfo?> GetInfoAsync(string key, CancellationToken cancellationToken = default) =>
        GetInfoCoreAsync(key, lockHeld: false, cancellationToken);

    public ValueTask<IObjectReader?> OpenReadAsync(string key, CancellationToken cancellationToken = default) =>
        OpenReadCoreAsync(key, lockHeld: false, cancellationToken);

    private async ValueTask<ObjectInfo?> GetInfoCoreAsync(string key, bool lockHeld, CancellationToken cancellationToken)
    {
        await using var reader = await OpenReadCoreAsync(key, lockHeld, cancellationToken);
        return reader?.Info;
    }

    /// <summary>
    /// Opens the current version. Its sidecar normally names it (<see cref="FileVersion"/>) and that is all;
    /// when it does not (a commit is swapping sidecar and data right now, the sidecar predates inodes, or the
    /// file was put there by hand), the open is redone under the key's lock, where no commit is half done: the
    /// version then found either matches its sidecar or is settled from its bytes (<see cref="OpenDeriving"/>).
    /// </summary>
    private async ValueTask<IObjectReader?> OpenReadCoreAsync(string key, bool lockHeld, CancellationToken cancellationToken)
    {
        var path = GetPath(key);
        if (TryOpen(path) is not { } handle)
        {
            return null;
        }

        if (TryDescribeFromSidecar(key, path, handle) is { } described)
        {
            return new FileSystemObjectReader(described, handle);
        }

        if (lockHeld)
        {
            return OpenDeriving(key, path, handle, cancellationToken);
        }

        handle.Dispose();
        using (await _locks.AcquireAsync(key, cancellationToken))
        {
            if (TryOpen(path) is not { } again)
            {
                return null;
            }

            if (TryDescribeFromSidecar(key, path, again) is { } current)
            {
                return new FileSystemObjectReader(current, again);
            }

            return OpenDeriving(key, path, again, cancellationToken);
        }
    }

    private static SafeFileHandle? TryOpen(string path)
    {
        try
        {
            return File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read | FileShare.Delete);
        }
        catch (Exception missing) when (missing is FileNotFoundException or DirectoryNotFoundException or UnauthorizedAccessException)
        {
            // A directory opens as UnauthorizedAccess on Unix: not an object either way.
            return null;
        }
    }

    /// <summary>The sidecar's metadata if it names the very version <paramref name="handle"/> holds open (read after the open: see <see cref="FileVersion"/>).</summary>
    private static ObjectInfo? TryDescribeFromSidecar(string key, string path, SafeFileHandle handle) =>
        FileSystemMetadata.TryRead(FileSystemMetadata.PathFor(path)) is { } stored && stored.Describes(FileVersion.Of(handle))
            ? stored.ToInfo(key)
            : null;

    /// <summary>
    /// Under the key's lock: the version's ETag from its bytes, kept in a sidecar naming this version for the
    /// next reader. A sidecar that names another version but holds this same ETag keeps its content type and
    /// digests (they were kept for these bytes): one written before sidecars named inodes, or a data directory
    /// copied elsewhere. Any other (a crash between the sidecar's rename and the data's) lends nothing.
    /// </summary>
    private static FileSystemObjectReader OpenDeriving(string key, string path, SafeFileHandle handle, CancellationToken cancellationToken)
    {
        try
        {
            var version = FileVersion.Of(handle);
            var etag = ComputeETag(handle, version.Length, cancellationToken);
            var derived = FileSystemMetadata.TryRead(FileSystemMetadata.PathFor(path)) is { } stored && stored.Length == version.Length && stored.ETag == etag
                ? FileSystemMetadata.For(version, etag, stored.ContentType, stored.Digests)
                : FileSystemMetadata.For(version, etag, null, null);
            try
            {
                derived.Write(path);
            }
            catch (Exception readOnly) when (readOnly is IOException or UnauthorizedAccessException)
            {
                // Serving does not need the sidecar; the next request derives it again.
            }

            return new FileSystemObjectReader(derived.ToInfo(key), handle);
        }
        catch
        {
            handle.Dispose();
            throw;
        }
    }

    public async ValueTask<bool> DeleteAsync(string key, WriteCondition? condition = null, CancellationToken cancellationToken = default)
    {
        var path = GetPath(key);
        using (await _locks.AcquireAsync(key, cancellationToken))
        {
            var current = await GetInfoCoreAsync(key, lockHeld: true, cancellationToken);
            if (current is null)
            {
                return false;
            }

            if (condition is not null && !condition.IsMetBy(current))
            {
                throw new PreconditionFailedException();
            }

            File.Delete(path);
            File.Delete(FileSystemMetadata.PathFor(path));
            RemoveEmptyParents(path);
            return true;
        }
    }

    public async ValueTask<ObjectPage> ListAsync(string prefix, int limit, string? cursor = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        // Every key in order, then the page: O(objects) per page, fine for the thousands a data directory
        // holds; an index would be the next step for millions.
        var keys = new List<string>();
        foreach (var file in Directory.EnumerateFiles(RootDirectory, "*", SearchOption.AllDirectories))
        {
            var name = Path.GetFileName(file);
            if (name.EndsWith(TempSuffix, StringComparison.Ordinal) || name.EndsWith(FileSystemMetadata.Suffix, StringComparison.Ordinal))
            {
                continue;
            }

            var key = Path.GetRelativePath(RootDirectory, file).Replace(Path.DirectorySeparatorChar, '/');
            if (key.StartsWith(prefix, StringComparison.Ordinal) && (cursor is null || string.CompareOrdinal(key, cursor) > 0))
            {
                keys.Add(key);
            }
        }

        keys.Sort(StringComparer.Ordinal);
        var objects = new List<ObjectInfo>(Math.Min(limit, keys.Count));
        var taken = 0;
        for (; taken < keys.Count && objects.Count < limit; taken++)
        {
            // A file deleted since the enumeration is simply left out.
            if (await GetInfoAsync(keys[taken], cancellationToken) is { } info)
            {
                objects.Add(info);
            }
        }

        return new ObjectPage(objects, taken < keys.Count ? keys[taken - 1] : null);
    }

    public async ValueTask AddDigestsAsync(string key, string etag, IReadOnlyDictionary<string, byte[]> digests, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(digests);
        var path = GetPath(key);
        using (await _locks.AcquireAsync(key, cancellationToken))
        {
            await using var reader = await OpenReadCoreAsync(key, lockHeld: true, cancellationToken);
            if (reader is null || reader.Info.ETag != etag)
            {
                return;
            }

            var merged = new Dictionary<string, byte[]>(reader.Info.Digests, StringComparer.Ordinal);
            foreach (var (algorithm, value) in digests)
            {
                merged[algorithm] = value;
            }

            // The version this lock-held reader opened: the one whose ETag was just checked.
            var info = reader.Info;
            FileSystemMetadata.For(FileVersion.Of(reader.FileHandle!), info.ETag, info.ContentType, merged).Write(path);
        }
    }

    /// <summary>Deletes temp files left by writes that a crash interrupted. Returns how many it removed.</summary>
    public int DeleteAbandonedTempFiles()
    {
        var removed = 0;
        foreach (var file in Directory.EnumerateFiles(RootDirectory, "*" + TempSuffix, SearchOption.AllDirectories))
        {
            File.Delete(file);
            removed++;
        }

        return removed;
    }

    /// <summary>Applies a commit under the key's lock: checks the condition, then puts sidecar and data into place.</summary>
    internal async ValueTask<ObjectInfo?> CommitAsync(string key, string finalPath, string tempPath, ObjectCommit commit, FileVersion version, bool describe, CancellationToken cancellationToken)
    {
        // Metadata without an ETag still needs one: derive it from the bytes about to become visible.
        var etag = commit.ETag;
        if (etag is null && (commit.ContentType is not null || commit.Digests is { Count: > 0 }))
        {
            using var written = File.OpenHandle(tempPath, FileMode.Open, FileAccess.Read);
            etag = ComputeETag(written, version.Length, cancellationToken);
        }

        using (await _locks.AcquireAsync(key, cancellationToken))
        {
            if (commit.Condition != WriteCondition.None && !commit.Condition.IsMetBy(await GetInfoCoreAsync(key, lockHeld: true, cancellationToken)))
            {
                throw new PreconditionFailedException();
            }

            // Sidecar first, then the data, both under this lock. The sidecar names the temp file's inode, which
            // no reader of the old data can hold: one that meets the old data with the new sidecar (or, after a
            // crash between the two, the old data for good) opens again under this lock, where the version it
            // finds is whole; a sidecar is only ever derived under it too.
            if (Directory.Exists(finalPath))
            {
                throw new KeyConflictException($"'{key}' is a folder of other files; a file cannot take its name.");
            }

            var metadataPath = FileSystemMetadata.PathFor(finalPath);
            if (etag is null)
            {
                File.Delete(metadataPath);
                File.Move(tempPath, finalPath, overwrite: true);
                return describe ? await GetInfoCoreAsync(key, lockHeld: true, cancellationToken) : null;
            }

            var metadata = FileSystemMetadata.For(version, etag, commit.ContentType, commit.Digests?.ToDictionary(StringComparer.Ordinal));
            metadata.Write(finalPath);
            File.Move(tempPath, finalPath, overwrite: true);
            return metadata.ToInfo(key);
        }
    }

    /// <summary>A strong ETag from the content: XXH3-128 (30–50 GB/s a core here), quoted hex.</summary>
    internal static string ComputeETag(SafeFileHandle handle, long length, CancellationToken cancellationToken)
    {
        var hash = new XxHash128();
        var buffer = ArrayPool<byte>.Shared.Rent(1024 * 1024);
        try
        {
            for (long offset = 0; offset < length;)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var read = RandomAccess.Read(handle, buffer, offset);
                if (read == 0)
                {
                    break;
                }

                hash.Append(buffer.AsSpan(0, read));
                offset += read;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        return FormatETag(hash.GetCurrentHashAsUInt128());
    }

    /// <summary>The ETag form of a content hash: <c>"</c> 32 hex digits <c>"</c> (RFC 9110 §8.8.3, strong).</summary>
    public static string FormatETag(UInt128 contentHash) => $"\"{XxHash128.ToHex(contentHash)}\"";
}
