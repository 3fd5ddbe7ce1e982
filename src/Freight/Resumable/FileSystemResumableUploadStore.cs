using System.Buffers;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization;
using Freight.Storage;
using Microsoft.Win32.SafeHandles;

namespace Freight.Resumable;

/// <summary>
/// Resumable uploads in a directory: <c>{id}.json</c> (the record, replaced atomically) and <c>{id}.bin</c>
/// (the bytes so far; its length is the offset, its modification time the last activity). Appends write at
/// the file's end straight from the request's buffers. Completing moves the file into the paired object
/// store (a rename when both are on one file system), so a 1 GiB upload is never copied. The record is
/// saved as completed before the move, so a crash in between is finished by <see cref="RecoverAsync"/>.
/// </summary>
public sealed class FileSystemResumableUploadStore : IResumableUploadStore
{
    private const string RecordSuffix = ".json";
    private const string DataSuffix = ".bin";

    private readonly IObjectStore _target;
    private readonly bool _flushToDisk;

    public FileSystemResumableUploadStore(string directory, IObjectStore target, bool flushToDisk = false)
    {
        ArgumentNullException.ThrowIfNull(directory);
        ArgumentNullException.ThrowIfNull(target);
        Directory = Path.GetFullPath(directory);
        System.IO.Directory.CreateDirectory(Directory);
        _target = target;
        _flushToDisk = flushToDisk;
    }

    public string Directory { get; }

    /// <summary>Where an upload's bytes are kept until it completes.</summary>
    public string DataPath(string id) => Path.Combine(Directory, CheckedId(id) + DataSuffix);

    private string RecordPath(string id) => Path.Combine(Directory, CheckedId(id) + RecordSuffix);

    public ValueTask CreateAsync(ResumableUpload upload, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        // The data file first: a record never names bytes that cannot be written. Reserving the declared
        // length (fallocate, length unchanged) spares the file system an allocation per append.
        using (OutOfSpace.CreateReserving(DataPath(upload.Id), upload.Length ?? 0))
        {
        }

        WriteRecord(upload);
        return ValueTask.CompletedTask;
    }

    public ValueTask<ResumableUpload?> GetAsync(string id, CancellationToken cancellationToken = default) =>
        ValueTask.FromResult(ResumableUploadId.IsValid(id) ? Read(id) : null);

    private ResumableUpload? Read(string id)
    {
        ResumableUpload? record;
        try
        {
            record = JsonSerializer.Deserialize(File.ReadAllBytes(RecordPath(id)), ResumableRecordContext.Default.ResumableUpload);
        }
        catch (Exception missing) when (missing is FileNotFoundException or DirectoryNotFoundException)
        {
            return null;
        }

        if (record is null)
        {
            return null;
        }

        if (record.Completion is { } completion)
        {
            return record with { Offset = record.Length ?? 0, LastActivityAt = completion.CompletedAt };
        }

        var data = new FileInfo(DataPath(id));
        if (!data.Exists)
        {
            // Deleted between the two reads.
            return null;
        }

        var activity = new DateTimeOffset(data.LastWriteTimeUtc, TimeSpan.Zero);
        return record with { Offset = data.Length, LastActivityAt = activity > record.CreatedAt ? activity : record.CreatedAt };
    }

    public ValueTask UpdateAsync(ResumableUpload upload, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        WriteRecord(upload);
        return ValueTask.CompletedTask;
    }

    public ValueTask<IResumableUploadAppender> BeginAppendAsync(string id, long offset, CancellationToken cancellationToken = default)
    {
        SafeFileHandle handle;
        try
        {
            handle = File.OpenHandle(DataPath(id), FileMode.Open, FileAccess.ReadWrite);
        }
        catch (FileNotFoundException gone)
        {
            throw new ResumableOffsetConflictException($"The upload '{id}' has no bytes to append to (it was completed or deleted).", gone);
        }

        var length = RandomAccess.GetLength(handle);
        if (length != offset)
        {
            handle.Dispose();
            throw new ResumableOffsetConflictException(offset, length);
        }

        IResumableUploadAppender appender = new FileAppender(handle, offset, _flushToDisk);
        return ValueTask.FromResult(appender);
    }

    public async ValueTask<int> ReadAsync(string id, long offset, Memory<byte> destination, CancellationToken cancellationToken = default)
    {
        using var handle = File.OpenHandle(DataPath(id), FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        return await RandomAccess.ReadAsync(handle, destination, offset, cancellationToken);
    }

    public async ValueTask<ObjectInfo> CompleteAsync(ResumableUpload upload, string key, ObjectCommit commit, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        ArgumentNullException.ThrowIfNull(commit);
        var completion = new ResumableCompletion(key, commit.ETag ?? throw new ArgumentException("A completion needs the content's ETag.", nameof(commit)),
            commit.ContentType, commit.Digests, DateTimeOffset.UtcNow);
        // Intent first: a crash after the move but before this would otherwise leave a record without bytes.
        WriteRecord(upload with { Completion = completion });
        try
        {
            return await MoveToTargetAsync(upload.Id, key, commit, cancellationToken);
        }
        catch
        {
            WriteRecord(upload with { Completion = null });
            throw;
        }
    }

    private async ValueTask<ObjectInfo> MoveToTargetAsync(string id, string key, ObjectCommit commit, CancellationToken cancellationToken)
    {
        if (_target is FileSystemObjectStore files)
        {
            return await files.CommitFileAsync(key, DataPath(id), commit, cancellationToken);
        }

        // Another kind of store: stream the bytes into a write session, then drop them here.
        await using (var writer = await _target.BeginWriteAsync(key, new FileInfo(DataPath(id)).Length, cancellationToken))
        {
            using var handle = File.OpenHandle(DataPath(id), FileMode.Open, FileAccess.Read);
            var buffer = ArrayPool<byte>.Shared.Rent(1024 * 1024);
            try
            {
                int read;
                for (long offset = 0; (read = await RandomAccess.ReadAsync(handle, buffer, offset, cancellationToken)) > 0; offset += read)
                {
                    await writer.WriteAsync(buffer.AsMemory(0, read), cancellationToken);
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }

            var info = await writer.CommitAsync(commit, cancellationToken);
            File.Delete(DataPath(id));
            return info;
        }
    }

    public ValueTask<bool> DeleteAsync(string id, CancellationToken cancellationToken = default)
    {
        if (!ResumableUploadId.IsValid(id) || !File.Exists(RecordPath(id)))
        {
            return ValueTask.FromResult(false);
        }

        // Record first: without it the bytes are no upload, and the sweep removes strays.
        File.Delete(RecordPath(id));
        File.Delete(DataPath(id));
        return ValueTask.FromResult(true);
    }

    public async IAsyncEnumerable<ResumableUpload> ListAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        foreach (var path in System.IO.Directory.EnumerateFiles(Directory, "*" + RecordSuffix))
        {
            cancellationToken.ThrowIfCancellationRequested();
            var id = Path.GetFileNameWithoutExtension(path);
            if (ResumableUploadId.IsValid(id) && await GetAsync(id, cancellationToken) is { } upload)
            {
                yield return upload;
            }
        }
    }

    /// <summary>
    /// After a restart: finishes completions a crash interrupted (record says completed, bytes still here),
    /// and removes data files without a record and half-written records. Returns how many it finished.
    /// </summary>
    public async ValueTask<int> RecoverAsync(CancellationToken cancellationToken = default)
    {
        var finished = 0;
        foreach (var temp in System.IO.Directory.EnumerateFiles(Directory, "*" + FileSystemObjectStore.TempSuffix))
        {
            File.Delete(temp);
        }

        foreach (var data in System.IO.Directory.EnumerateFiles(Directory, "*" + DataSuffix))
        {
            var id = Path.GetFileNameWithoutExtension(data);
            var record = ResumableUploadId.IsValid(id) ? Read(id) : null;
            if (record is null)
            {
                File.Delete(data);
            }
            else if (record.Completion is { } completion)
            {
                var commit = new ObjectCommit { ETag = completion.ETag, ContentType = completion.ContentType, Digests = completion.Digests };
                await MoveToTargetAsync(id, completion.Key, commit, cancellationToken);
                finished++;
            }
        }

        return finished;
    }

    private void WriteRecord(ResumableUpload upload)
    {
        var path = RecordPath(upload.Id);
        var temp = Path.Combine(Directory, $".{Guid.NewGuid():N}{FileSystemObjectStore.TempSuffix}");
        try
        {
            File.WriteAllBytes(temp, JsonSerializer.SerializeToUtf8Bytes(upload, ResumableRecordContext.Default.ResumableUpload));
            if (_flushToDisk)
            {
                using var handle = File.OpenHandle(temp, FileMode.Open, FileAccess.ReadWrite);
                RandomAccess.FlushToDisk(handle);
            }

            File.Move(temp, path, overwrite: true);
        }
        finally
        {
            File.Delete(temp);
        }
    }

    private static string CheckedId(string id) =>
        ResumableUploadId.IsValid(id) ? id : throw new ArgumentException($"'{id}' is not an upload id.", nameof(id));

    /// <summary>Positional writes at the data file's end; a discard truncates back.</summary>
    private sealed class FileAppender(SafeFileHandle handle, long startOffset, bool flushToDisk) : IResumableUploadAppender
    {
        // Reused for gather writes of multi-segment sequences (one pwritev per pipe read).
        private readonly List<ReadOnlyMemory<byte>> _segments = new(16);

        public long StartOffset { get; } = startOffset;

        public long Offset { get; private set; } = startOffset;

        public async ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken = default)
        {
            if (data.IsEmpty)
            {
                return;
            }

            if (data.IsSingleSegment)
            {
                await RandomAccess.WriteAsync(handle, data.First, Offset, cancellationToken);
            }
            else
            {
                _segments.Clear();
                foreach (var segment in data)
                {
                    _segments.Add(segment);
                }

                await RandomAccess.WriteAsync(handle, _segments, Offset, cancellationToken);
            }

            Offset += data.Length;
        }

        public ValueTask DiscardAsync(CancellationToken cancellationToken = default)
        {
            RandomAccess.SetLength(handle, StartOffset);
            Offset = StartOffset;
            return ValueTask.CompletedTask;
        }

        public ValueTask DisposeAsync()
        {
            if (flushToDisk && !handle.IsClosed)
            {
                RandomAccess.FlushToDisk(handle);
            }

            handle.Dispose();
            return ValueTask.CompletedTask;
        }
    }
}

[JsonSerializable(typeof(ResumableUpload))]
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, UseStringEnumConverter = true)]
internal sealed partial class ResumableRecordContext : JsonSerializerContext;
