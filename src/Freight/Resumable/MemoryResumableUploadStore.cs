using System.Buffers;
using System.Runtime.CompilerServices;
using Freight.Storage;

namespace Freight.Resumable;

/// <summary>
/// Resumable uploads in memory, paired with any object store (typically <see cref="MemoryObjectStore"/>):
/// for tests and nodes whose data may vanish with them. Same contract as the file-system store.
/// </summary>
public sealed class MemoryResumableUploadStore(IObjectStore target, TimeProvider? time = null) : IResumableUploadStore
{
    private readonly Dictionary<string, Entry> _uploads = new(StringComparer.Ordinal);
    private readonly Lock _lock = new();
    private readonly TimeProvider _time = time ?? TimeProvider.System;

    /// <inheritdoc />
    public ValueTask CreateAsync(ResumableUpload upload, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        lock (_lock)
        {
            if (!_uploads.TryAdd(upload.Id, new Entry(upload, _time.GetUtcNow())))
            {
                throw new IOException($"The upload '{upload.Id}' exists already.");
            }
        }

        return ValueTask.CompletedTask;
    }

    /// <inheritdoc />
    public ValueTask<ResumableUpload?> GetAsync(string id, CancellationToken cancellationToken = default)
    {
        lock (_lock)
        {
            return ValueTask.FromResult(_uploads.TryGetValue(id, out var entry) ? entry.Describe() : null);
        }
    }

    /// <inheritdoc />
    public ValueTask UpdateAsync(ResumableUpload upload, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        lock (_lock)
        {
            if (_uploads.TryGetValue(upload.Id, out var entry))
            {
                entry.Record = upload;
            }
        }

        return ValueTask.CompletedTask;
    }

    /// <inheritdoc />
    public ValueTask<IResumableUploadAppender> BeginAppendAsync(string id, long offset, CancellationToken cancellationToken = default)
    {
        lock (_lock)
        {
            if (!_uploads.TryGetValue(id, out var entry) || entry.Record.Completion is not null)
            {
                throw new ResumableOffsetConflictException($"The upload '{id}' has no bytes to append to (it was completed or deleted).");
            }

            if (entry.Length != offset)
            {
                throw new ResumableOffsetConflictException(offset, entry.Length);
            }

            IResumableUploadAppender appender = new Appender(this, entry, offset);
            return ValueTask.FromResult(appender);
        }
    }

    /// <inheritdoc />
    public ValueTask<int> ReadAsync(string id, long offset, Memory<byte> destination, CancellationToken cancellationToken = default)
    {
        lock (_lock)
        {
            if (!_uploads.TryGetValue(id, out var entry) || offset >= entry.Length)
            {
                return ValueTask.FromResult(0);
            }

            var count = (int)Math.Min(destination.Length, entry.Length - offset);
            entry.Bytes.AsSpan((int)offset, count).CopyTo(destination.Span);
            return ValueTask.FromResult(count);
        }
    }

    /// <inheritdoc />
    public async ValueTask<ObjectInfo> CompleteAsync(ResumableUpload upload, string key, ObjectCommit commit, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        ArgumentNullException.ThrowIfNull(commit);
        byte[] content;
        Entry entry;
        lock (_lock)
        {
            entry = _uploads.TryGetValue(upload.Id, out var found) ? found : throw new InvalidOperationException($"There is no upload '{upload.Id}'.");
            content = entry.Bytes.AsSpan(0, (int)entry.Length).ToArray();
        }

        ObjectInfo info;
        await using (var writer = await target.BeginWriteAsync(key, content.Length, cancellationToken))
        {
            await writer.WriteAsync(content, cancellationToken);
            info = await writer.CommitAsync(commit, cancellationToken);
        }

        lock (_lock)
        {
            entry.Record = upload with { Completion = new ResumableCompletion(key, info.ETag, info.ContentType, info.Digests, _time.GetUtcNow()) };
            entry.Bytes = [];
        }

        return info;
    }

    /// <inheritdoc />
    public ValueTask<bool> DeleteAsync(string id, CancellationToken cancellationToken = default)
    {
        lock (_lock)
        {
            return ValueTask.FromResult(_uploads.Remove(id));
        }
    }

    /// <summary>The machine's (or container's) memory not in use at the last garbage collection: the bytes a store in memory competes for.</summary>
    public long? AvailableBytes()
    {
        var memory = GC.GetGCMemoryInfo();
        return Math.Max(0, memory.TotalAvailableMemoryBytes - memory.MemoryLoadBytes);
    }

    /// <inheritdoc />
    public async IAsyncEnumerable<ResumableUpload> ListAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        List<ResumableUpload> uploads;
        lock (_lock)
        {
            uploads = _uploads.Values.Select(entry => entry.Describe()).ToList();
        }

        foreach (var upload in uploads)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return upload;
        }

        await Task.CompletedTask;
    }

    private sealed class Entry(ResumableUpload record, DateTimeOffset createdAt)
    {
        public ResumableUpload Record { get; set; } = record;

        public byte[] Bytes { get; set; } = [];

        public long Length { get; set; }

        public DateTimeOffset LastActivityAt { get; set; } = createdAt;

        public ResumableUpload Describe() => Record with
        {
            Offset = Record.Completion is null ? Length : Record.Length ?? 0,
            LastActivityAt = Record.Completion?.CompletedAt ?? LastActivityAt,
        };
    }

    private sealed class Appender(MemoryResumableUploadStore store, Entry entry, long startOffset) : IResumableUploadAppender
    {
        public long StartOffset { get; } = startOffset;

        public long Offset { get; private set; } = startOffset;

        public ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken = default)
        {
            lock (store._lock)
            {
                var needed = Offset + data.Length;
                if (needed > entry.Bytes.Length)
                {
                    var grown = new byte[Math.Max(needed, Math.Min(Array.MaxLength, Math.Max(entry.Bytes.Length * 2L, 64 * 1024)))];
                    entry.Bytes.AsSpan(0, (int)entry.Length).CopyTo(grown);
                    entry.Bytes = grown;
                }

                data.CopyTo(entry.Bytes.AsSpan((int)Offset));
                Offset = needed;
                entry.Length = needed;
                entry.LastActivityAt = store._time.GetUtcNow();
            }

            return ValueTask.CompletedTask;
        }

        public ValueTask DiscardAsync(CancellationToken cancellationToken = default)
        {
            lock (store._lock)
            {
                entry.Length = StartOffset;
                Offset = StartOffset;
            }

            return ValueTask.CompletedTask;
        }

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}
