using System.Buffers;
using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization;
using Amazon.S3;
using Amazon.S3.Model;
using Freight.Storage;
using Freight.Resumable;

namespace Freight.Storage.S3;

/// <summary>
/// Resumable uploads in the S3 bucket of an <see cref="S3ObjectStore"/>, so any node can continue any upload.
/// Each upload has a state object <c>{Prefix}.freight/tus/{id}</c>: its record and S3 state as JSON, followed by
/// the tail — the last bytes, fewer than a part (S3 parts are ≥ 5 MiB, but a PATCH may carry a few bytes). Its
/// bytes are the parts of one multipart upload to <c>.freight/tus/{id}.bin</c> plus that tail: offset = parts + tail.
/// An append uploads each full part in the background (PartsInFlight at once) and saves the state after each, in
/// part order; every save is conditional on the state the append started from (If-Match on the state object's S3 ETag),
/// so two nodes cannot both extend an upload: the second gets <see cref="ResumableOffsetConflictException"/>.
/// When every byte is in, the multipart upload is completed ("sealed") to the staged object; completing copies it
/// into place as the file (no bytes move on RGW).
/// </summary>
public sealed class S3ResumableUploadStore(S3ObjectStore target, TimeProvider? time = null) : IResumableUploadStore, IAbandonedUploadSweeper
{
    // A HEAD reads the record, not the tail: the first 64 KiB hold any record (JSON of a few hundred bytes plus metadata).
    private const int RecordReadBytes = 64 * 1024;
    private const string RecordBytesMetadata = "freight-record-bytes";

    private readonly S3Connection _s3 = target.Connection;
    private readonly TimeProvider _time = time ?? TimeProvider.System;
    private readonly ConcurrentDictionary<string, IObjectReader> _sealedReaders = new(StringComparer.Ordinal);

    /// <inheritdoc />
    public async ValueTask CreateAsync(ResumableUpload upload, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        var state = new S3UploadState { Record = upload, LastActivityAt = _time.GetUtcNow() };
        try
        {
            await SaveAsync(state, ReadOnlyMemory<byte>.Empty, previousETag: null, cancellationToken);
        }
        catch (PreconditionFailedException exists)
        {
            throw new IOException($"The upload '{upload.Id}' exists already.", exists);
        }
    }

    /// <inheritdoc />
    public async ValueTask<ResumableUpload?> GetAsync(string id, CancellationToken cancellationToken = default) =>
        (await LoadAsync(id, withTail: false, cancellationToken))?.State.Describe();

    /// <inheritdoc />
    public async ValueTask UpdateAsync(ResumableUpload upload, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        if (await LoadAsync(upload.Id, withTail: true, cancellationToken) is { } loaded)
        {
            await SaveAsync(loaded.State with { Record = upload }, loaded.Tail, loaded.ETag, cancellationToken);
        }
    }

    /// <inheritdoc />
    public async ValueTask<IResumableUploadAppender> BeginAppendAsync(string id, long offset, CancellationToken cancellationToken = default)
    {
        var loaded = await LoadAsync(id, withTail: true, cancellationToken);
        if (loaded is null || loaded.State.Record.Completion is not null || loaded.State.Sealed)
        {
            throw new ResumableOffsetConflictException($"The upload '{id}' has no bytes to append to (it was completed or deleted).");
        }

        if (loaded.State.Offset != offset)
        {
            throw new ResumableOffsetConflictException(offset, loaded.State.Offset);
        }

        return new Appender(this, loaded);
    }

    /// <summary>
    /// Reads a complete upload's bytes (the completion's digests after a restart or from another node, a final
    /// upload gathering its parts). S3 cannot read an unfinished multipart upload, so the first read seals it.
    /// </summary>
    public async ValueTask<int> ReadAsync(string id, long offset, Memory<byte> destination, CancellationToken cancellationToken = default)
    {
        if (!_sealedReaders.TryGetValue(id, out var reader))
        {
            var loaded = await LoadAsync(id, withTail: true, cancellationToken);
            if (loaded is null)
            {
                return 0;
            }

            await SealAsync(loaded, cancellationToken);
            reader = await target.OpenReadAsync(StagedKey(id), cancellationToken) ?? throw new IOException($"The sealed bytes of upload '{id}' are gone.");
            if (!_sealedReaders.TryAdd(id, reader))
            {
                await reader.DisposeAsync();
                reader = _sealedReaders[id];
            }
        }

        return await reader.ReadAsync(offset, destination, cancellationToken);
    }

    /// <inheritdoc />
    public async ValueTask<ObjectInfo> CompleteAsync(ResumableUpload upload, string key, ObjectCommit commit, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(upload);
        ArgumentNullException.ThrowIfNull(commit);
        var etag = commit.ETag ?? throw new ArgumentException("An S3 upload completes with the ETag its digests gave.", nameof(commit));
        var loaded = await LoadAsync(upload.Id, withTail: true, cancellationToken) ?? throw new InvalidOperationException($"There is no upload '{upload.Id}'.");
        loaded = await SealAsync(loaded, cancellationToken);
        await ForgetReaderAsync(upload.Id);

        // Copy first, then record the completion, then drop the staged bytes: a completion cut short anywhere can run again.
        var info = await target.CommitStagedAsync(_s3.ObjectKey(StagedKey(upload.Id)), key, loaded.State.Offset, commit, etag, cancellationToken, keepStaged: true);
        var completed = loaded.State with
        {
            Record = upload with { Completion = new ResumableCompletion(key, info.ETag, info.ContentType, info.Digests, _time.GetUtcNow()) },
        };
        await SaveAsync(completed, ReadOnlyMemory<byte>.Empty, loaded.ETag, cancellationToken);
        await _s3.DeleteObjectAsync(_s3.ObjectKey(StagedKey(upload.Id)), CancellationToken.None);
        return info;
    }

    /// <inheritdoc />
    public async ValueTask<bool> DeleteAsync(string id, CancellationToken cancellationToken = default)
    {
        await ForgetReaderAsync(id);
        if (await LoadAsync(id, withTail: false, cancellationToken) is not { } loaded)
        {
            return false;
        }

        if (loaded.State.MultipartId is { } multipart && !loaded.State.Sealed)
        {
            await AbortQuietlyAsync(multipart, id);
        }

        await _s3.DeleteObjectAsync(_s3.ObjectKey(StagedKey(id)), cancellationToken);
        await _s3.DeleteObjectAsync(_s3.ObjectKey(StateKey(id)), cancellationToken);
        return true;
    }

    /// <summary>Unknown: a bucket has no free space to ask (set Tus:MaxPendingBytes to bound what uploads may promise).</summary>
    public long? AvailableBytes() => null;

    /// <inheritdoc />
    public async IAsyncEnumerable<ResumableUpload> ListAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        var prefix = _s3.ObjectKey(StateKey(""));
        string? token = null;
        do
        {
            var page = await _s3.Client.ListObjectsV2Async(new ListObjectsV2Request { BucketName = _s3.Bucket, Prefix = prefix, ContinuationToken = token }, cancellationToken);
            foreach (var entry in page.S3Objects ?? [])
            {
                var id = entry.Key[prefix.Length..];
                if (ResumableUploadId.IsValid(id) && await GetAsync(id, cancellationToken) is { } upload)
                {
                    yield return upload;
                }
            }

            token = page.IsTruncated == true ? page.NextContinuationToken : null;
        }
        while (token is not null);
    }

    /// <summary>
    /// Removes what crashed nodes left in the bucket, older than <paramref name="olderThan"/>: multipart uploads
    /// under the tus prefix that no upload's state names (a node stopped between starting one and saving the state
    /// that records it), and the files store's abandoned staged writes. Returns how many.
    /// </summary>
    public async ValueTask<int> SweepAbandonedAsync(TimeSpan olderThan, CancellationToken cancellationToken = default)
    {
        var prefix = _s3.ObjectKey(StateKey(""));
        var removed = await target.SweepAbandonedStagingAsync(olderThan, cancellationToken);
        foreach (var upload in await target.AbandonedMultipartUploadsAsync(prefix, DateTime.UtcNow - olderThan, cancellationToken))
        {
            var id = upload.Key[prefix.Length..].Replace(".bin", "", StringComparison.Ordinal);
            if ((await LoadAsync(id, withTail: false, cancellationToken))?.State.MultipartId != upload.UploadId)
            {
                await AbortQuietlyAsync(upload.UploadId, id);
                removed++;
            }
        }

        return removed;
    }

    private static string StateKey(string id) => ".freight/tus/" + id;

    private static string StagedKey(string id) => ".freight/tus/" + id + ".bin";

    private async ValueTask ForgetReaderAsync(string id)
    {
        if (_sealedReaders.TryRemove(id, out var reader))
        {
            await reader.DisposeAsync();
        }
    }

    /// <summary>Completes the multipart upload (tail as its last part) into the staged object, once every byte is in.</summary>
    private async ValueTask<Loaded> SealAsync(Loaded loaded, CancellationToken cancellationToken)
    {
        var state = loaded.State;
        if (state.Sealed)
        {
            return loaded;
        }

        if (!state.Describe().HasAllBytes)
        {
            throw new InvalidOperationException($"The upload '{state.Record.Id}' is not complete: S3 cannot read an unfinished multipart upload.");
        }

        var stagedKey = _s3.ObjectKey(StagedKey(state.Record.Id));
        var parts = state.Parts.ToList();
        if (state.MultipartId is null)
        {
            // Everything fits in the tail: one PUT.
            await S3Transfers.PutObjectAsync(_s3, stagedKey, loaded.Tail, S3Metadata.DefaultContentType, new Dictionary<string, string>(), null, null, cancellationToken);
        }
        else
        {
            if (loaded.Tail.Length > 0)
            {
                // The last part may be smaller than 5 MiB.
                var number = parts.Count == 0 ? 1 : parts[^1].Number + 1;
                parts.Add(new S3UploadPart(number, await S3Transfers.UploadPartAsync(_s3, stagedKey, state.MultipartId, number, loaded.Tail, cancellationToken), loaded.Tail.Length));
            }

            await _s3.Client.CompleteMultipartUploadAsync(
                new CompleteMultipartUploadRequest
                {
                    BucketName = _s3.Bucket,
                    Key = stagedKey,
                    UploadId = state.MultipartId,
                    PartETags = [.. parts.Select(part => new PartETag(part.Number, part.ETag))],
                },
                cancellationToken);
        }

        var sealedState = state with { Sealed = true, Parts = parts };
        var etag = await SaveAsync(sealedState, ReadOnlyMemory<byte>.Empty, loaded.ETag, cancellationToken);
        return new Loaded(sealedState, ReadOnlyMemory<byte>.Empty, etag);
    }

    /// <summary>The upload's state (and its tail, when asked), or null when there is none.</summary>
    private async ValueTask<Loaded?> LoadAsync(string id, bool withTail, CancellationToken cancellationToken)
    {
        if (!ResumableUploadId.IsValid(id))
        {
            return null;
        }

        using var response = await GetStateAsync(id, withTail, cancellationToken);
        if (response.StatusCode == HttpStatusCode.NotFound)
        {
            return null;
        }

        if (!response.IsSuccessStatusCode)
        {
            throw new S3TransferException(response.StatusCode, $"S3 answered {(int)response.StatusCode} for the state of upload '{id}'.");
        }

        var recordBytes = response.Headers.TryGetValues("x-amz-meta-" + RecordBytesMetadata, out var values)
            && int.TryParse(values.First(), NumberStyles.None, CultureInfo.InvariantCulture, out var length)
            ? length
            : throw new IOException($"The state of upload '{id}' lacks its record length.");
        var body = await response.Content.ReadAsByteArrayAsync(cancellationToken);
        if (body.Length < recordBytes)
        {
            return await LoadAsync(id, withTail: true, cancellationToken);
        }

        var state = JsonSerializer.Deserialize(body.AsSpan(0, recordBytes), S3UploadStateContext.Default.S3UploadState)
            ?? throw new IOException($"The state of upload '{id}' is empty.");
        var tail = withTail ? body.AsMemory(recordBytes) : ReadOnlyMemory<byte>.Empty;
        return new Loaded(state, tail, response.Headers.ETag?.ToString() ?? "");
    }

    /// <summary>
    /// GETs the state object (only its first bytes unless <paramref name="withTail"/>). RGW answers a GET racing an
    /// overwrite of the same small object with a 500 now and then (seen in the abort tests): 5xx is tried three
    /// times, as the store's body transfers are.
    /// </summary>
    private async Task<HttpResponseMessage> GetStateAsync(string id, bool withTail, CancellationToken cancellationToken)
    {
        for (var attempt = 1; ; attempt++)
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, _s3.Presign(HttpVerb.GET, _s3.ObjectKey(StateKey(id))));
            if (!withTail)
            {
                request.Headers.Range = new System.Net.Http.Headers.RangeHeaderValue(0, RecordReadBytes - 1);
            }

            var response = await _s3.Http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
            if (response.StatusCode < HttpStatusCode.InternalServerError || attempt == 3)
            {
                return response;
            }

            response.Dispose();
        }
    }

    /// <summary>
    /// Writes the state object (record, then tail), only over the version <paramref name="previousETag"/> names
    /// (null: only if none exists); returns the new version's ETag. Another node's write in between →
    /// <see cref="ResumableOffsetConflictException"/>.
    /// </summary>
    private async ValueTask<string> SaveAsync(S3UploadState state, ReadOnlyMemory<byte> tail, string? previousETag, CancellationToken cancellationToken)
    {
        var record = JsonSerializer.SerializeToUtf8Bytes(state with { TailLength = tail.Length }, S3UploadStateContext.Default.S3UploadState);
        var body = new byte[record.Length + tail.Length];
        record.CopyTo(body, 0);
        tail.CopyTo(body.AsMemory(record.Length));
        var metadata = new Dictionary<string, string> { [RecordBytesMetadata] = record.Length.ToString(CultureInfo.InvariantCulture) };
        try
        {
            return await S3Transfers.PutObjectAsync(
                _s3, _s3.ObjectKey(StateKey(state.Record.Id)), body, "application/json", metadata,
                ifNoneMatch: previousETag is null ? "*" : null,
                ifMatch: previousETag?.Trim('"'),
                cancellationToken);
        }
        catch (PreconditionFailedException changed) when (previousETag is not null)
        {
            throw new ResumableOffsetConflictException($"The upload '{state.Record.Id}' was changed by another request meanwhile.", changed);
        }
    }

    private async ValueTask AbortQuietlyAsync(string multipartId, string id)
    {
        try
        {
            await _s3.Client.AbortMultipartUploadAsync(
                new AbortMultipartUploadRequest { BucketName = _s3.Bucket, Key = _s3.ObjectKey(StagedKey(id)), UploadId = multipartId },
                CancellationToken.None);
        }
        catch (AmazonS3Exception gone) when (gone.StatusCode == HttpStatusCode.NotFound)
        {
        }
    }

    private sealed record Loaded(S3UploadState State, ReadOnlyMemory<byte> Tail, string ETag);

    /// <summary>
    /// An append: bytes fill a part-sized buffer that starts with the stored tail; each full buffer goes up as the
    /// next part in the background (at most <see cref="S3StoreOptions.PartsInFlight"/> at once, as a PUT's parts do)
    /// while the body keeps flowing into the next buffer. The state is saved after each part, in part order, and
    /// only after every part before it was saved: the stored offset never counts a byte S3 does not hold. A part
    /// that fails stops the saves (later parts are simply not listed); the append then fails, the upload staying
    /// at the last saved offset. Disposing saves the rest (a part if ≥ 5 MiB, else the new tail);
    /// <see cref="DiscardAsync"/> puts back the state the append began with (its parts are then simply not listed:
    /// S3 drops unlisted parts at completion).
    /// </summary>
    private sealed class Appender : IResumableUploadAppender
    {
        private readonly S3ResumableUploadStore _store;
        private readonly Loaded _start;
        private readonly int _partBytes;
        private readonly string _stagedKey;
        private readonly Queue<Task> _partsInFlight = new();
        private S3UploadState _state;
        private string _etag;
        private string? _multipartId;
        private int _nextPartNumber;
        // The last part's upload-then-save: the next part's save waits for it, so saves go in part order.
        private Task _lastPartSaved = Task.CompletedTask;
        private byte[]? _buffer;
        private int _filled;
        private bool _finished;

        public Appender(S3ResumableUploadStore store, Loaded start)
        {
            _store = store;
            _start = start;
            _state = start.State;
            _etag = start.ETag;
            _partBytes = store._s3.Options.PartBytes;
            _stagedKey = store._s3.ObjectKey(StagedKey(start.State.Record.Id));
            _multipartId = start.State.MultipartId;
            _nextPartNumber = start.State.Parts.Count == 0 ? 1 : start.State.Parts[^1].Number + 1;
            _buffer = ArrayPool<byte>.Shared.Rent(_partBytes);
            start.Tail.CopyTo(_buffer);
            _filled = start.Tail.Length;
            StartOffset = start.State.Offset;
            Offset = StartOffset;
        }

        public long StartOffset { get; }

        public long Offset { get; private set; }

        public async ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken = default)
        {
            ObjectDisposedException.ThrowIf(_finished, this);
            foreach (var segment in data)
            {
                var rest = segment;
                while (!rest.IsEmpty)
                {
                    var count = Math.Min(rest.Length, _partBytes - _filled);
                    rest.Span[..count].CopyTo(_buffer.AsSpan(_filled));
                    _filled += count;
                    Offset += count;
                    rest = rest[count..];
                    if (_filled == _partBytes)
                    {
                        await StartBufferAsPartAsync(cancellationToken);
                    }
                }
            }
        }

        public async ValueTask DiscardAsync(CancellationToken cancellationToken = default)
        {
            if (_finished)
            {
                return;
            }

            _finished = true;
            try
            {
                await Task.WhenAll(_partsInFlight);
            }
            catch (Exception)
            {
                // Taken back anyway: the state the append began with is put back below.
            }

            if (!ReferenceEquals(_state, _start.State) || _multipartId != _start.State.MultipartId)
            {
                // A multipart upload begun here stays recorded (with no parts), so it is reused or aborted later.
                var restored = _start.State with { MultipartId = _multipartId, LastActivityAt = _store._time.GetUtcNow() };
                await _store.SaveAsync(restored, _start.Tail, _etag, cancellationToken);
            }

            Offset = StartOffset;
            ReturnBuffer();
        }

        public async ValueTask DisposeAsync()
        {
            if (_finished)
            {
                return;
            }

            _finished = true;
            try
            {
                // A part that failed fails the append here, before anything past it is saved.
                await Task.WhenAll(_partsInFlight);
                if (Offset != StartOffset)
                {
                    // Cut off or done: keep every byte received (a rest of ≥ 5 MiB can be a part; less stays the tail).
                    if (_filled >= S3StoreOptions.MinPartBytes)
                    {
                        await StartBufferAsPartAsync(CancellationToken.None);
                        await Task.WhenAll(_partsInFlight);
                    }

                    _state = _state with { LastActivityAt = _store._time.GetUtcNow(), TailLength = _filled };
                    _etag = await _store.SaveAsync(_state, _buffer.AsMemory(0, _filled), _etag, CancellationToken.None);
                }
            }
            finally
            {
                ReturnBuffer();
            }
        }

        private async ValueTask StartBufferAsPartAsync(CancellationToken cancellationToken)
        {
            foreach (var earlier in _partsInFlight)
            {
                if (earlier.IsFaulted || earlier.IsCanceled)
                {
                    await earlier;
                }
            }

            if (_partsInFlight.Count == _store._s3.Options.PartsInFlight)
            {
                await _partsInFlight.Dequeue();
            }

            if (_multipartId is null)
            {
                var started = await _store._s3.Client.InitiateMultipartUploadAsync(new InitiateMultipartUploadRequest { BucketName = _store._s3.Bucket, Key = _stagedKey }, cancellationToken);
                _multipartId = started.UploadId;
            }

            var part = UploadPartThenSaveAsync(_buffer!, _filled, _nextPartNumber++, _lastPartSaved, cancellationToken);
            _partsInFlight.Enqueue(part);
            _lastPartSaved = part;
            _buffer = ArrayPool<byte>.Shared.Rent(_partBytes);
            _filled = 0;
        }

        private async Task UploadPartThenSaveAsync(byte[] buffer, int length, int number, Task previousPartSaved, CancellationToken cancellationToken)
        {
            try
            {
                // Off the caller's stack: the request keeps flowing into the next buffer meanwhile.
                await Task.Yield();
                var etag = await S3Transfers.UploadPartAsync(_store._s3, _stagedKey, _multipartId!, number, buffer.AsMemory(0, length), cancellationToken);
                await previousPartSaved;
                // Saved with no tail: the bytes after this part are not stored yet.
                _state = _state with
                {
                    MultipartId = _multipartId,
                    Parts = [.. _state.Parts, new S3UploadPart(number, etag, length)],
                    TailLength = 0,
                    LastActivityAt = _store._time.GetUtcNow(),
                };
                _etag = await _store.SaveAsync(_state, ReadOnlyMemory<byte>.Empty, _etag, cancellationToken);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        private void ReturnBuffer()
        {
            if (_buffer is not null)
            {
                ArrayPool<byte>.Shared.Return(_buffer);
                _buffer = null;
            }
        }
    }
}

/// <summary>What the S3 store keeps for an upload besides its tail bytes.</summary>
internal sealed record S3UploadState
{
    public required ResumableUpload Record { get; init; }

    /// <summary>The multipart upload holding the parts; null until the first part.</summary>
    public string? MultipartId { get; init; }

    public IReadOnlyList<S3UploadPart> Parts { get; init; } = [];

    /// <summary>Bytes after the parts, kept in the state object itself.</summary>
    public long TailLength { get; init; }

    /// <summary>Every byte is in the staged object (the multipart upload was completed).</summary>
    public bool Sealed { get; init; }

    public DateTimeOffset LastActivityAt { get; init; }

    /// <summary>Bytes stored: the parts and the tail, or all of them once sealed.</summary>
    [JsonIgnore]
    public long Offset => Sealed ? Record.Length ?? 0 : Parts.Sum(part => part.Length) + TailLength;

    public ResumableUpload Describe() => Record with
    {
        Offset = Record.Completion is null ? Offset : Record.Length ?? 0,
        LastActivityAt = Record.Completion?.CompletedAt ?? LastActivityAt,
    };
}

internal sealed record S3UploadPart(int Number, string ETag, long Length);

[JsonSerializable(typeof(S3UploadState))]
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, UseStringEnumConverter = true)]
internal sealed partial class S3UploadStateContext : JsonSerializerContext;
