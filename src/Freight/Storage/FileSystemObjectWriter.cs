using System.Buffers;
using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>A write session of <see cref="FileSystemObjectStore"/>: positional writes into a temp file.</summary>
internal sealed class FileSystemObjectWriter : IObjectWriter
{
    private readonly FileSystemObjectStore _store;
    private readonly string _finalPath;
    private readonly string _tempPath;
    private readonly bool _flushToDisk;
    private readonly SafeFileHandle _handle;
    // Reused for gather writes of multi-segment sequences (one pwritev per pipe read).
    private readonly List<ReadOnlyMemory<byte>> _segments = new(16);
    private readonly bool _preallocated;
    private bool _committed;

    // Folders this write created, removed again if it aborts (deepest last).
    private readonly IReadOnlyList<string> _createdDirectories;

    public FileSystemObjectWriter(FileSystemObjectStore store, string key, string finalPath, string tempPath, bool flushToDisk, long preallocationSize, IReadOnlyList<string> createdDirectories)
    {
        _createdDirectories = createdDirectories;
        _store = store;
        Key = key;
        _finalPath = finalPath;
        _tempPath = tempPath;
        _flushToDisk = flushToDisk;
        // Reserving the whole length up front (fallocate) spares the file system an allocation per write.
        _handle = OutOfSpace.CreateReserving(tempPath, preallocationSize);
        _preallocated = preallocationSize > 0;
    }

    public string Key { get; }

    public long Length { get; private set; }

    public async ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken = default)
    {
        if (data.IsSingleSegment)
        {
            await WriteAsync(data.First, cancellationToken);
            return;
        }

        _segments.Clear();
        foreach (var segment in data)
        {
            _segments.Add(segment);
        }

        await RandomAccess.WriteAsync(_handle, _segments, Length, cancellationToken);
        Length += data.Length;
    }

    public async ValueTask WriteAsync(ReadOnlyMemory<byte> data, CancellationToken cancellationToken = default)
    {
        if (data.IsEmpty)
        {
            return;
        }

        await RandomAccess.WriteAsync(_handle, data, Length, cancellationToken);
        Length += data.Length;
    }

    public async ValueTask<ObjectInfo> CommitAsync(ObjectCommit commit, CancellationToken cancellationToken = default) =>
        await CommitCoreAsync(commit, describe: true, cancellationToken) ?? throw new IOException($"'{Key}' vanished right after its commit.");

    /// <summary>Commits without metadata and without reading it back (the lab's uploads: no hashing after the fact).</summary>
    public async ValueTask CommitAsync(CancellationToken cancellationToken = default) =>
        await CommitCoreAsync(ObjectCommit.Unconditional, describe: false, cancellationToken);

    private async ValueTask<ObjectInfo?> CommitCoreAsync(ObjectCommit commit, bool describe, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(commit);
        ObjectDisposedException.ThrowIf(_handle.IsClosed, this);
        if (_preallocated)
        {
            // The reservation is not part of the file's length on Linux, so it is not visible — but its blocks
            // stay allocated until the length is set again, even to the same value.
            RandomAccess.SetLength(_handle, Length);
        }

        if (_flushToDisk)
        {
            RandomAccess.FlushToDisk(_handle);
        }

        // The sidecar names the length and modification time it describes; the rename keeps both.
        var lastWrite = File.GetLastWriteTimeUtc(_handle);
        _handle.Dispose();
        var info = await _store.CommitAsync(Key, _finalPath, _tempPath, commit, Length, lastWrite, describe, cancellationToken);
        _committed = true;
        return info;
    }

    public ValueTask DisposeAsync()
    {
        _handle.Dispose();
        if (!_committed)
        {
            File.Delete(_tempPath);
            FileSystemObjectStore.RemoveEmptyDirectories(_createdDirectories);
        }

        return ValueTask.CompletedTask;
    }
}
