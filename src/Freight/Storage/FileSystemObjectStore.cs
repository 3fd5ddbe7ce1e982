using System.Buffers;
using System.IO.Hashing;
using Freight.Digests;
using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>
/// Stores objects as files under a root directory, metadata in a hidden sidecar beside each file
/// (<see cref="FileSystemMetadata"/>). A write goes to a hidden temp file in the target's own directory
/// (same file system, so the final rename is atomic) and is renamed into place on commit; an abort
/// deletes the temp file. Conditions are checked and applied under a per-key lock: one process owns a
/// data directory. Every file and folder is reached through <see cref="ContainedDirectory"/>: no symbolic
/// link below the root is followed (a key meeting one is absent to reads and a conflict to writes).
/// </summary>
public sealed class FileSystemObjectStore : IObjectStore, IDisposable
{
    /// <summary>Suffix of in-progress writes; files with it are never served and are swept at start.</summary>
    public const string TempSuffix = ".freight-tmp";

    /// <summary>
    /// The file a health probe creates and deletes to prove a store's directory can be written: a temp name, so no
    /// listing shows it and the start's sweep removes one a crash left.
    /// </summary>
    internal const string ProbeName = ".healthz" + TempSuffix;

    private readonly FileSystemStoreOptions _options;
    private readonly KeyLocks _locks = new();

    /// <summary>A store under <paramref name="options"/>' root directory (created if missing).</summary>
    public FileSystemObjectStore(FileSystemStoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options;
        Root = new ContainedDirectory(options.RootDirectory);
    }

    /// <summary>The absolute root directory.</summary>
    public string RootDirectory => Root.FullName;

    /// <summary>Closes the handle the store holds on its root (so its file system can be unmounted); the host disposes it when it stops.</summary>
    public void Dispose() => Root.Dispose();

    /// <summary>The root, through which every file of the store is reached: no symbolic link below it is followed.</summary>
    internal ContainedDirectory Root { get; }

    /// <summary>Throws unless the root is still at its path and takes a file (<see cref="ContainedDirectory.ProbeWrite"/>).</summary>
    internal void ProbeWrite() => Root.ProbeWrite(ProbeName);

    /// <summary>Throws unless the root is still at its path (<see cref="ContainedDirectory.ThrowIfMoved"/>).</summary>
    internal void ThrowIfMoved() => Root.ThrowIfMoved();

    /// <summary>Maps a key (already validated, '/'-separated, relative) to its absolute path, for looking from outside: the store itself opens nothing by path.</summary>
    public string GetPath(string key) => Root.FullPath(key);

    /// <inheritdoc />
    public ValueTask<IObjectWriter> BeginWriteAsync(string key, long? expectedLength = null, CancellationToken cancellationToken = default)
    {
        ThrowIfNotAFileName(key);
        var folder = FolderOf(key);
        var created = CreateFolders(key, folder);
        var tempName = TempName(folder);
        try
        {
            IObjectWriter writer;
            try
            {
                writer = new FileSystemObjectWriter(this, key, tempName, _options.FlushToDisk, expectedLength ?? 0, created);
            }
            catch (DirectoryNotFoundException)
            {
                // A delete emptied and removed the folder between its creation and the temp file: make it again, once.
                created.AddRange(CreateFolders(key, folder));
                writer = new FileSystemObjectWriter(this, key, tempName, _options.FlushToDisk, expectedLength ?? 0, created);
            }

            return ValueTask.FromResult(writer);
        }
        catch
        {
            RemoveEmptyFolders(created);
            throw;
        }
    }

    /// <summary>
    /// Makes the finished file <paramref name="sourceName"/> in <paramref name="source"/> the object <paramref name="key"/>,
    /// as a commit would: moved to a temp name beside the key (a rename on the same file system, a copy across),
    /// then committed under the key's lock. On failure the file is moved back, unchanged.
    /// </summary>
    internal async ValueTask<ObjectInfo> CommitFileAsync(string key, ContainedDirectory source, string sourceName, ObjectCommit commit, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(commit);
        ThrowIfNotAFileName(key);
        var folder = FolderOf(key);
        var created = CreateFolders(key, folder);
        var tempName = TempName(folder);
        try
        {
            source.Move(sourceName, Root, tempName);
        }
        catch
        {
            RemoveEmptyFolders(created);
            throw;
        }

        try
        {
            FileVersion version;
            using (var moved = Root.TryOpenFile(tempName, FileAccess.Read) ?? throw new IOException($"'{key}': the file being committed vanished."))
            {
                // After the move: a move across file systems is a copy, a new inode.
                version = FileVersion.Of(moved);
            }

            return await CommitAsync(key, tempName, commit, version, describe: true, cancellationToken)
                ?? throw new IOException($"'{key}' vanished right after its commit.");
        }
        catch
        {
            Root.Move(tempName, source, sourceName);
            RemoveEmptyFolders(created);
            throw;
        }
    }

    /// <summary>A key a file may take: not a folder, and not a link or a path through one (never written through).</summary>
    private void ThrowIfNotAFileName(string key)
    {
        switch (Root.GetEntry(key))
        {
            case ContainedEntry.Folder:
                throw new KeyConflictException($"'{key}' is a folder of other files; a file cannot take its name.");
            case ContainedEntry.Foreign:
                throw LinkConflict(key, key);
        }
    }

    private static KeyConflictException LinkConflict(string key, string at) =>
        new($"'{key}' meets '{at}', a symbolic link or a special file; the store follows no link below its root.");

    /// <summary>The folder part of a key: "" for a key at the root.</summary>
    private static string FolderOf(string key) => key.LastIndexOf('/') is var slash and >= 0 ? key[..slash] : "";

    // ".{guid}.freight-tmp": short, so a name at the key's 240-byte limit still leaves room.
    internal static string TempName(string folder) => (folder.Length == 0 ? "" : folder + "/") + $".{Guid.NewGuid():N}{TempSuffix}";

    /// <summary>Creates the folders a key needs, top down; returns the ones it created, deepest last, so an abort can remove them.</summary>
    private List<string> CreateFolders(string key, string folder)
    {
        var created = new List<string>();
        // The usual case, the folder already there: one look.
        if (folder.Length == 0 || Root.GetEntry(folder) == ContainedEntry.Folder)
        {
            return created;
        }

        try
        {
            for (var slash = folder.IndexOf('/'); ; slash = folder.IndexOf('/', slash + 1))
            {
                var path = slash < 0 ? folder : folder[..slash];
                if (Root.CreateFolder(path))
                {
                    created.Add(path);
                }
                else
                {
                    switch (Root.GetEntry(path))
                    {
                        case ContainedEntry.File:
                            throw new KeyConflictException($"'{key}' would be inside '{path}', which is a file.");
                        case ContainedEntry.Foreign:
                            throw LinkConflict(key, path);
                        case ContainedEntry.Missing when Root.CreateFolder(path):
                            // Removed by a delete between the two calls: made again.
                            created.Add(path);
                            break;
                    }
                }

                if (slash < 0)
                {
                    return created;
                }
            }
        }
        catch
        {
            RemoveEmptyFolders(created);
            throw;
        }
    }

    /// <summary>Removes <paramref name="folders"/> (deepest last in the list) that are empty; a folder another write filled meanwhile stays.</summary>
    internal void RemoveEmptyFolders(IReadOnlyList<string> folders)
    {
        for (var i = folders.Count - 1; i >= 0; i--)
        {
            if (!Root.DeleteEmptyFolder(folders[i]))
            {
                // Not empty (another upload arrived) or gone: leave it and its parents.
                return;
            }
        }
    }

    /// <summary>After a delete, the folders left empty between the file and the root (a file may later take their name).</summary>
    private void RemoveEmptyParents(string key)
    {
        for (var slash = key.LastIndexOf('/'); slash > 0 && Root.DeleteEmptyFolder(key[..slash]); slash = key.LastIndexOf('/', slash - 1))
        {
        }
    }

    /// <inheritdoc />
    public ValueTask<ObjectInfo?> GetInfoAsync(string key, CancellationToken cancellationToken = default) =>
        GetInfoCoreAsync(key, lockHeld: false, cancellationToken);

    /// <inheritdoc />
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
        if (TryOpen(key) is not { } handle)
        {
            return null;
        }

        if (TryDescribeFromSidecar(key, handle) is { } described)
        {
            return new FileSystemObjectReader(described, handle);
        }

        if (lockHeld)
        {
            return OpenDeriving(key, handle, cancellationToken);
        }

        handle.Dispose();
        using (await _locks.AcquireAsync(key, cancellationToken))
        {
            if (TryOpen(key) is not { } again)
            {
                return null;
            }

            if (TryDescribeFromSidecar(key, again) is { } current)
            {
                return new FileSystemObjectReader(current, again);
            }

            return OpenDeriving(key, again, cancellationToken);
        }
    }

    /// <summary>The key's file; null when missing, a folder, or a link (there or on the way): a link is never served.</summary>
    private SafeFileHandle? TryOpen(string key) => Root.TryOpenFile(key, FileAccess.Read);

    /// <summary>The sidecar's metadata if it names the very version <paramref name="handle"/> holds open (read after the open: see <see cref="FileVersion"/>).</summary>
    private ObjectInfo? TryDescribeFromSidecar(string key, SafeFileHandle handle) =>
        FileSystemMetadata.TryRead(Root, key) is { } stored && stored.Describes(FileVersion.Of(handle))
            ? stored.ToInfo(key)
            : null;

    /// <summary>
    /// Under the key's lock: the version's ETag from its bytes, kept in a sidecar naming this version for the
    /// next reader. A sidecar that names another version but holds this same ETag keeps its content type and
    /// digests (they were kept for these bytes): one written before sidecars named inodes, or a data directory
    /// copied elsewhere. Any other (a crash between the sidecar's rename and the data's) lends nothing.
    /// </summary>
    private FileSystemObjectReader OpenDeriving(string key, SafeFileHandle handle, CancellationToken cancellationToken)
    {
        try
        {
            var version = FileVersion.Of(handle);
            var etag = ComputeETag(handle, version.Length, cancellationToken);
            var derived = FileSystemMetadata.TryRead(Root, key) is { } stored && stored.Length == version.Length && stored.ETag == etag
                ? FileSystemMetadata.For(version, etag, stored.ContentType, stored.Digests)
                : FileSystemMetadata.For(version, etag, null, null);
            try
            {
                derived.Write(Root, key);
            }
            catch (Exception readOnly) when (readOnly is IOException or UnauthorizedAccessException or KeyConflictException)
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

    /// <inheritdoc />
    public async ValueTask<bool> DeleteAsync(string key, WriteCondition? condition = null, CancellationToken cancellationToken = default)
    {
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

            Root.Delete(key);
            Root.Delete(FileSystemMetadata.NameFor(key));
            RemoveEmptyParents(key);
            return true;
        }
    }

    /// <inheritdoc />
    public async ValueTask<ObjectPage> ListAsync(string prefix, int limit, string? cursor = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        // Every key in order, then the page: O(objects) per page, fine for the thousands a data directory
        // holds; an index would be the next step for millions.
        var keys = new List<string>();
        // Links are skipped, linked folders never entered (a loop is just a link).
        foreach (var key in Root.EnumerateFiles(recursive: true))
        {
            if (key.EndsWith(TempSuffix, StringComparison.Ordinal) || key.EndsWith(FileSystemMetadata.Suffix, StringComparison.Ordinal))
            {
                continue;
            }

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

    /// <inheritdoc />
    public async ValueTask AddDigestsAsync(string key, string etag, IReadOnlyDictionary<string, byte[]> digests, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(digests);
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
            FileSystemMetadata.For(FileVersion.Of(reader.FileHandle!), info.ETag, info.ContentType, merged).Write(Root, key);
        }
    }

    /// <summary>Deletes temp files left by writes that a crash interrupted. Returns how many it removed.</summary>
    public int DeleteAbandonedTempFiles()
    {
        var removed = 0;
        foreach (var name in Root.EnumerateFiles(recursive: true).ToList())
        {
            if (name.EndsWith(TempSuffix, StringComparison.Ordinal) && Root.Delete(name))
            {
                removed++;
            }
        }

        return removed;
    }

    /// <summary>Applies a commit under the key's lock: checks the condition, then puts sidecar and data into place.</summary>
    internal async ValueTask<ObjectInfo?> CommitAsync(string key, string tempName, ObjectCommit commit, FileVersion version, bool describe, CancellationToken cancellationToken)
    {
        // Metadata without an ETag still needs one: derive it from the bytes about to become visible.
        var etag = commit.ETag;
        if (etag is null && (commit.ContentType is not null || commit.Digests is { Count: > 0 }))
        {
            using var written = Root.TryOpenFile(tempName, FileAccess.Read) ?? throw new IOException($"'{key}': the file being committed vanished.");
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
            // A link planted at the key since the write began is refused too (the rename would replace it, not write through it).
            ThrowIfNotAFileName(key);
            // The one check a commit adds (a statx): never store into a directory moved away from its path.
            Root.ThrowIfMoved();
            if (etag is null)
            {
                Root.Delete(FileSystemMetadata.NameFor(key));
                Root.Rename(tempName, key);
                return describe ? await GetInfoCoreAsync(key, lockHeld: true, cancellationToken) : null;
            }

            var metadata = FileSystemMetadata.For(version, etag, commit.ContentType, commit.Digests?.ToDictionary(StringComparer.Ordinal));
            metadata.Write(Root, key);
            Root.Rename(tempName, key);
            return metadata.ToInfo(key);
        }
    }

    /// <summary>A strong ETag from the content: XXH3-128 (System.IO.Hashing, ~40 GB/s a core here), quoted hex.</summary>
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
    public static string FormatETag(UInt128 contentHash) => EntityTags.FromContentHash(contentHash);
}
