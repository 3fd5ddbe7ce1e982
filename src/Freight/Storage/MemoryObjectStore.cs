using System.Buffers;
using System.IO.Hashing;

namespace Freight.Storage;

/// <summary>
/// Objects in memory (tests, caches, a node whose data may vanish with it). Same contract as the file
/// system store: a write is invisible until it commits, commits are atomic and conditional, readers keep
/// the version they opened.
/// </summary>
public sealed class MemoryObjectStore : IObjectStore
{
    private readonly Dictionary<string, StoredObject> _objects = new(StringComparer.Ordinal);
    private readonly Lock _lock = new();
    private readonly TimeProvider _time;

    /// <summary>An empty store; modification times from <paramref name="time"/> (the system clock by default).</summary>
    public MemoryObjectStore(TimeProvider? time = null) => _time = time ?? TimeProvider.System;

    /// <inheritdoc />
    public ValueTask<IObjectWriter> BeginWriteAsync(string key, long? expectedLength = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        IObjectWriter writer = new MemoryObjectWriter(this, key, expectedLength);
        return ValueTask.FromResult(writer);
    }

    /// <inheritdoc />
    public ValueTask<ObjectInfo?> GetInfoAsync(string key, CancellationToken cancellationToken = default)
    {
        lock (_lock)
        {
            return ValueTask.FromResult(_objects.TryGetValue(key, out var stored) ? stored.Info : null);
        }
    }

    /// <inheritdoc />
    public ValueTask<IObjectReader?> OpenReadAsync(string key, CancellationToken cancellationToken = default)
    {
        lock (_lock)
        {
            IObjectReader? reader = _objects.TryGetValue(key, out var stored) ? new MemoryObjectReader(stored) : null;
            return ValueTask.FromResult(reader);
        }
    }

    /// <inheritdoc />
    public ValueTask<bool> DeleteAsync(string key, WriteCondition? condition = null, CancellationToken cancellationToken = default)
    {
        lock (_lock)
        {
            if (!_objects.TryGetValue(key, out var stored))
            {
                return ValueTask.FromResult(false);
            }

            if (condition is not null && !condition.IsMetBy(stored.Info))
            {
                throw new PreconditionFailedException();
            }

            _objects.Remove(key);
            return ValueTask.FromResult(true);
        }
    }

    /// <inheritdoc />
    public ValueTask<ObjectPage> ListAsync(string prefix, int limit, string? cursor = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        List<ObjectInfo> matching;
        lock (_lock)
        {
            matching = _objects.Values
                .Select(o => o.Info)
                .Where(i => i.Key.StartsWith(prefix, StringComparison.Ordinal) && (cursor is null || string.CompareOrdinal(i.Key, cursor) > 0))
                .ToList();
        }

        matching.Sort((a, b) => string.CompareOrdinal(a.Key, b.Key));
        var page = matching.Take(limit).ToList();
        return ValueTask.FromResult(new ObjectPage(page, matching.Count > limit ? page[^1].Key : null));
    }

    /// <inheritdoc />
    public ValueTask AddDigestsAsync(string key, string etag, IReadOnlyDictionary<string, byte[]> digests, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(digests);
        lock (_lock)
        {
            if (_objects.TryGetValue(key, out var stored) && stored.Info.ETag == etag)
            {
                var merged = new Dictionary<string, byte[]>(stored.Info.Digests, StringComparer.Ordinal);
                foreach (var (algorithm, value) in digests)
                {
                    merged[algorithm] = value;
                }

                _objects[key] = stored with { Info = stored.Info with { Digests = merged } };
            }
        }

        return ValueTask.CompletedTask;
    }

    internal ObjectInfo Commit(string key, byte[] content, ObjectCommit commit)
    {
        lock (_lock)
        {
            _objects.TryGetValue(key, out var current);
            if (!commit.Condition.IsMetBy(current?.Info))
            {
                throw new PreconditionFailedException();
            }

            // Whole seconds, as HTTP dates have; a file system keeps finer times, but none is promised.
            var now = _time.GetUtcNow();
            var info = new ObjectInfo(
                key,
                content.Length,
                new DateTimeOffset(now.UtcTicks - (now.UtcTicks % TimeSpan.TicksPerSecond), TimeSpan.Zero),
                commit.ETag ?? FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(content)),
                commit.ContentType,
                commit.Digests?.ToDictionary(StringComparer.Ordinal) ?? []);
            _objects[key] = new StoredObject(info, content);
            return info;
        }
    }

    internal sealed record StoredObject(ObjectInfo Info, byte[] Content);

    private sealed class MemoryObjectWriter(MemoryObjectStore store, string key, long? expectedLength) : IObjectWriter
    {
        private readonly ArrayBufferWriter<byte> _buffer = new((int)Math.Clamp(expectedLength ?? 0, 256, 64L * 1024 * 1024));
        private bool _done;

        public string Key => key;

        public long Length => _buffer.WrittenCount;

        public ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken = default)
        {
            ObjectDisposedException.ThrowIf(_done, this);
            foreach (var segment in data)
            {
                _buffer.Write(segment.Span);
            }

            return ValueTask.CompletedTask;
        }

        public ValueTask WriteAsync(ReadOnlyMemory<byte> data, CancellationToken cancellationToken = default)
        {
            ObjectDisposedException.ThrowIf(_done, this);
            _buffer.Write(data.Span);
            return ValueTask.CompletedTask;
        }

        public ValueTask<ObjectInfo> CommitAsync(ObjectCommit commit, CancellationToken cancellationToken = default)
        {
            ArgumentNullException.ThrowIfNull(commit);
            ObjectDisposedException.ThrowIf(_done, this);
            var info = store.Commit(key, _buffer.WrittenSpan.ToArray(), commit);
            _done = true;
            return ValueTask.FromResult(info);
        }

        public ValueTask DisposeAsync()
        {
            _done = true;
            _buffer.Clear();
            return ValueTask.CompletedTask;
        }
    }

    private sealed class MemoryObjectReader(StoredObject stored) : IObjectReader
    {
        public ObjectInfo Info => stored.Info;

        public Microsoft.Win32.SafeHandles.SafeFileHandle? FileHandle => null;

        public ReadOnlyMemory<byte>? Content => stored.Content;

        public ValueTask<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default)
        {
            if (offset >= stored.Content.Length)
            {
                return ValueTask.FromResult(0);
            }

            var count = (int)Math.Min(destination.Length, stored.Content.Length - offset);
            stored.Content.AsSpan((int)offset, count).CopyTo(destination.Span);
            return ValueTask.FromResult(count);
        }

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}
