using System.Collections.Concurrent;
using Freight.Storage;
using Microsoft.AspNetCore.StaticFiles;
using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// Per-file state that the download path reuses across requests: formatted header values for every file
/// served and, for small files, the whole content, so a 4 KiB GET costs a dictionary lookup and a copy
/// instead of open/fstat/read/close. Larger files are kept open instead (up to <see cref="FileCacheOptions.MaxOpenFiles"/>,
/// as nginx's open_file_cache does), so their GETs skip open, stat and close. Entries are trusted for
/// <see cref="FileCacheOptions.RevalidateAfter"/>; after that a request opens the file and its statx decides whether
/// the entry still holds (same inode, length and modification time). Headers and bytes always come from the same
/// version of a file: the representation is described from the very handle the bytes are read from.
/// Thread-safe: lookups take no lock; changes (rare) take one.
/// </summary>
public sealed class FileCache
{
    private const string DefaultContentType = "application/octet-stream";

    private readonly FileCacheOptions _options;
    private readonly IContentTypeProvider _contentTypes;
    private readonly ConcurrentDictionary<string, Entry> _entries = new(StringComparer.Ordinal);
    private readonly Lock _changeLock = new();
    private readonly long _revalidateAfterTicks;
    /// <summary>
    /// How often kept files are looked over, and how long one may go unconfirmed (or <see cref="FileCacheOptions.RevalidateAfter"/>
    /// if longer) before it is closed: a file deleted behind the server's back and not asked for again gives its space
    /// back within two periods, as nginx's open_file_cache `inactive` does (60 s by default there).
    /// </summary>
    internal static readonly TimeSpan SweepPeriod = TimeSpan.FromSeconds(5);

    private long _cachedBytes;
    private int _openFiles;

    // Runs while the cache keeps files open (it roots the cache until then), stopped when none is left.
    private Timer? _sweeper;

    /// <summary>A cache with the default <see cref="FileCacheOptions"/>.</summary>
    public FileCache()
        : this(new FileCacheOptions())
    {
    }

    /// <summary>A cache bounded by <paramref name="options"/>; content types from <paramref name="contentTypes"/> (file extensions by default).</summary>
    public FileCache(FileCacheOptions options, IContentTypeProvider? contentTypes = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxCachedFileBytes, nameof(options.MaxCachedFileBytes));
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxCachedBytes, nameof(options.MaxCachedBytes));
        ArgumentOutOfRangeException.ThrowIfLessThan(options.MaxEntries, 1, nameof(options.MaxEntries));
        ArgumentOutOfRangeException.ThrowIfLessThan(options.RevalidateAfter, TimeSpan.Zero, nameof(options.RevalidateAfter));
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxOpenFiles, nameof(options.MaxOpenFiles));
        _options = options;
        _contentTypes = contentTypes ?? new FileExtensionContentTypeProvider();
        _revalidateAfterTicks = (long)(options.RevalidateAfter.TotalSeconds * System.Diagnostics.Stopwatch.Frequency);
    }

    /// <summary>Content bytes held in memory now.</summary>
    public long CachedBytes => Interlocked.Read(ref _cachedBytes);

    /// <summary>Entries held now.</summary>
    public int Count => _entries.Count;

    /// <summary>Files the cache holds open now.</summary>
    public int OpenFiles => Volatile.Read(ref _openFiles);

    /// <summary>
    /// The cached representation of <paramref name="path"/> with its content, if it was checked against the
    /// file less than <see cref="FileCacheOptions.RevalidateAfter"/> ago; otherwise null, and the caller
    /// opens the file and calls <see cref="Describe(string, SafeFileHandle)"/>.
    /// </summary>
    public FileRepresentation? TryGetFresh(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        return _entries.TryGetValue(path, out var entry) && entry.Representation.Content is not null && IsFresh(entry)
            ? entry.Representation
            : null;
    }

    /// <summary>
    /// As <see cref="TryGetFresh(string)"/>, also for a file the cache holds open: then <paramref name="lease"/> borrows
    /// its handle (the caller disposes the lease once the bytes are sent). Null: the caller opens the file.
    /// </summary>
    internal FileRepresentation? TryGetFresh(string path, out FileLease lease)
    {
        lease = default;
        if (!_entries.TryGetValue(path, out var entry) || !IsFresh(entry))
        {
            return null;
        }

        if (entry.Representation.Content is not null)
        {
            return entry.Representation;
        }

        return Volatile.Read(ref entry.OpenFile) is { } open && FileLease.TryBorrow(open, out lease) ? entry.Representation : null;
    }

    /// <summary>
    /// The lease a request sends <paramref name="file"/> (just opened and described as <paramref name="representation"/>)
    /// through: the cache keeps the handle open for the next requests when the entry is still that representation,
    /// holds no handle yet and <see cref="FileCacheOptions.MaxOpenFiles"/> allows, and lends it; else the request owns it.
    /// </summary>
    internal FileLease Keep(string path, FileRepresentation representation, SafeFileHandle file)
    {
        if (representation.Content is null
            && _entries.TryGetValue(path, out var entry)
            && ReferenceEquals(entry.Representation, representation)
            && Volatile.Read(ref entry.OpenFile) is null)
        {
            lock (_changeLock)
            {
                // Under the lock: Release (which closes kept files) cannot run between the check and the store.
                if (_openFiles < _options.MaxOpenFiles
                    && _entries.TryGetValue(path, out var current) && ReferenceEquals(current, entry) && entry.OpenFile is null
                    && FileLease.TryBorrow(file, out var lease))
                {
                    entry.OpenFile = file;
                    _openFiles++;
                    _sweeper ??= new Timer(static state => ((FileCache)state!).CloseIdleFiles(((FileCache)state).IdleTicks), this, SweepPeriod, SweepPeriod);
                    return lease;
                }
            }
        }

        return FileLease.Own(file);
    }

    /// <summary>
    /// The representation of the file open as <paramref name="file"/> (opened from <paramref name="path"/>),
    /// from one statx: the cached one when the version (inode, length, modification time) still matches, else a new
    /// one, which is cached (with the content, read from this handle, when small enough and within the budget).
    /// </summary>
    public FileRepresentation Describe(string path, SafeFileHandle file)
    {
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(file);
        return Describe(path, file, FileVersion.Of(file));
    }

    /// <summary>As <see cref="Describe(string, SafeFileHandle)"/>, with the <paramref name="version"/> the opener already read from the handle (one statx, not two more).</summary>
    internal FileRepresentation Describe(string path, SafeFileHandle file, FileVersion version)
    {
        var length = version.Length;
        var lastWrite = version.LastWriteUtc;
        var now = System.Diagnostics.Stopwatch.GetTimestamp();
        if (_entries.TryGetValue(path, out var entry) && entry.Version == version)
        {
            Volatile.Write(ref entry.CheckedAt, now);
            return entry.Representation;
        }

        // The file changed (or is new): the old version's bytes leave the budget before the new one asks for room.
        if (entry is not null)
        {
            Invalidate(path);
        }

        var lastModified = new DateTimeOffset(lastWrite, TimeSpan.Zero);
        var tag = FileRepresentation.EntityTagFromMetadata(lastModified, length);
        var contentType = _contentTypes.TryGetContentType(path, out var known) ? known : DefaultContentType;
        byte[]? content = null;
        if (length <= _options.MaxCachedFileBytes && TryReserve(length))
        {
            try
            {
                content = ReadWhole(file, (int)length);
            }
            catch
            {
                Interlocked.Add(ref _cachedBytes, -length);
                throw;
            }
        }

        // Typed null on purpose: a null byte[] converts to an empty, non-null ReadOnlyMemory<byte>.
        var cached = content is null ? (ReadOnlyMemory<byte>?)null : content;
        var representation = new FileRepresentation(length, lastModified, tag, contentType, cached);
        Store(path, new Entry(representation, version, now));
        return representation;
    }

    /// <summary>Forgets <paramref name="path"/>: the next request looks at the file. Writers call it after replacing or deleting a file.</summary>
    public void Invalidate(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (!_entries.ContainsKey(path))
        {
            // Nothing to forget (a 404 asks on every request): no lock.
            return;
        }

        lock (_changeLock)
        {
            if (_entries.TryRemove(path, out var removed))
            {
                Release(removed);
            }
        }
    }

    private bool TryReserve(long length)
    {
        if (Interlocked.Add(ref _cachedBytes, length) <= _options.MaxCachedBytes)
        {
            return true;
        }

        Interlocked.Add(ref _cachedBytes, -length);
        return false;
    }

    private void Store(string path, Entry entry)
    {
        lock (_changeLock)
        {
            if (_entries.Count >= _options.MaxEntries && !_entries.ContainsKey(path))
            {
                // Rare (more distinct files than entries): start over rather than track recency per request.
                foreach (var old in _entries.Values)
                {
                    Release(old);
                }

                _entries.Clear();
            }

            if (_entries.TryGetValue(path, out var replaced))
            {
                Release(replaced);
            }

            _entries[path] = entry;
        }
    }

    /// <summary>Closes the kept files whose entries were last confirmed more than <paramref name="idleTicks"/> (Stopwatch) ago.</summary>
    internal void CloseIdleFiles(long idleTicks)
    {
        var now = System.Diagnostics.Stopwatch.GetTimestamp();
        lock (_changeLock)
        {
            foreach (var entry in _entries.Values)
            {
                if (entry.OpenFile is not null && now - Volatile.Read(ref entry.CheckedAt) > idleTicks)
                {
                    CloseKept(entry);
                }
            }

            if (_openFiles == 0)
            {
                _sweeper?.Dispose();
                _sweeper = null;
            }
        }
    }

    // A kept file unconfirmed for longer than a sweep period (or the revalidation time, if longer) is closed.
    private long IdleTicks => Math.Max(_revalidateAfterTicks, (long)(SweepPeriod.TotalSeconds * System.Diagnostics.Stopwatch.Frequency));

    private bool IsFresh(Entry entry) =>
        System.Diagnostics.Stopwatch.GetTimestamp() - Volatile.Read(ref entry.CheckedAt) < _revalidateAfterTicks;

    // Called under _changeLock, once the entry has left the dictionary.
    private void Release(Entry entry)
    {
        if (entry.Representation.Content is { } content)
        {
            Interlocked.Add(ref _cachedBytes, -content.Length);
        }

        CloseKept(entry);
    }

    // Under _changeLock. The handle closes once the last request still sending from it lets go (SafeHandle's reference count).
    private void CloseKept(Entry entry)
    {
        if (entry.OpenFile is { } open)
        {
            entry.OpenFile = null;
            open.Dispose();
            _openFiles--;
        }
    }

    private static byte[] ReadWhole(SafeFileHandle file, int length)
    {
        var content = new byte[length];
        var filled = 0;
        while (filled < length)
        {
            var read = RandomAccess.Read(file, content.AsSpan(filled), filled);
            if (read == 0)
            {
                throw new EndOfStreamException($"The file ended {length - filled} bytes before its length said.");
            }

            filled += read;
        }

        return content;
    }

    private sealed class Entry(FileRepresentation representation, FileVersion version, long checkedAt)
    {
        public readonly FileRepresentation Representation = representation;

        // Inode (where statx gives it), length and modification time: a file renamed over this one is another version
        // even with the same length and time, and the handle kept for it must not serve the new path.
        public readonly FileVersion Version = version;

        // Stopwatch timestamp of the last statx that confirmed the entry.
        public long CheckedAt = checkedAt;

        // The file kept open for requests (files not cached whole); set and cleared under _changeLock.
        public SafeFileHandle? OpenFile;
    }
}
