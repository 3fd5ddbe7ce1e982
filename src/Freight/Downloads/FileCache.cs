using System.Collections.Concurrent;
using Freight.Storage;
using Microsoft.AspNetCore.StaticFiles;
using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// Per-file state that the download path reuses across requests: formatted header values for every file
/// served and, for small files, the whole content, so a 4 KiB GET costs a dictionary lookup and a copy
/// instead of open/fstat/read/close. Entries are trusted for <see cref="FileCacheOptions.RevalidateAfter"/>;
/// after that a request opens the file and its fstat decides whether the entry still holds. Files larger
/// than <see cref="FileCacheOptions.MaxCachedFileBytes"/> are always read from an open handle whose fstat
/// gives the headers, so headers and bytes never come from two different versions of a file.
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
    private long _cachedBytes;

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
        _options = options;
        _contentTypes = contentTypes ?? new FileExtensionContentTypeProvider();
        _revalidateAfterTicks = (long)(options.RevalidateAfter.TotalSeconds * System.Diagnostics.Stopwatch.Frequency);
    }

    /// <summary>Content bytes held in memory now.</summary>
    public long CachedBytes => Interlocked.Read(ref _cachedBytes);

    /// <summary>Entries held now.</summary>
    public int Count => _entries.Count;

    /// <summary>
    /// The cached representation of <paramref name="path"/> with its content, if it was checked against the
    /// file less than <see cref="FileCacheOptions.RevalidateAfter"/> ago; otherwise null, and the caller
    /// opens the file and calls <see cref="Describe(string, SafeFileHandle)"/>.
    /// </summary>
    public FileRepresentation? TryGetFresh(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (_entries.TryGetValue(path, out var entry)
            && entry.Representation.Content is not null
            && System.Diagnostics.Stopwatch.GetTimestamp() - Volatile.Read(ref entry.CheckedAt) < _revalidateAfterTicks)
        {
            return entry.Representation;
        }

        return null;
    }

    /// <summary>
    /// The representation of the file open as <paramref name="file"/> (opened from <paramref name="path"/>),
    /// from its fstat: the cached one when length and modification time still match, else a new one, which
    /// is cached (with the content, read from this handle, when small enough and within the budget).
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
        if (_entries.TryGetValue(path, out var entry) && entry.Length == length && entry.LastWriteTicks == lastWrite.Ticks)
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
        Store(path, new Entry(representation, lastWrite.Ticks, now));
        return representation;
    }

    /// <summary>Forgets <paramref name="path"/>: the next request looks at the file. Writers call it after replacing or deleting a file.</summary>
    public void Invalidate(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
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

    private void Release(Entry entry)
    {
        if (entry.Representation.Content is { } content)
        {
            Interlocked.Add(ref _cachedBytes, -content.Length);
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

    private sealed class Entry(FileRepresentation representation, long lastWriteTicks, long checkedAt)
    {
        public readonly FileRepresentation Representation = representation;
        public readonly long Length = representation.Length;
        public readonly long LastWriteTicks = lastWriteTicks;

        // Stopwatch timestamp of the last fstat that confirmed the entry.
        public long CheckedAt = checkedAt;
    }
}
