using System.Buffers;
using System.IO.Hashing;

namespace Freight.Storage.S3;

/// <summary>
/// A write session of <see cref="S3ObjectStore"/>. Bytes fill a part-sized buffer; an object that fits in one
/// is written by a single PutObject at commit. A larger one becomes a multipart upload to a staging key under
/// the store's reserved prefix, parts going up while later bytes still arrive; the commit completes it and
/// copies it into place with its metadata (see <see cref="S3ObjectStore"/>). Disposing without a commit aborts
/// the multipart upload: no object, no orphaned parts.
/// </summary>
internal sealed class S3ObjectWriter(S3ObjectStore store, S3Connection s3, ArrayPool<byte> pool, string key) : IObjectWriter
{
    private byte[]? _buffer;
    private int _filled;
    private S3MultipartUpload? _multipart;
    private bool _done;

    public string Key => key;

    public long Length { get; private set; }

    public async ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken = default)
    {
        foreach (var segment in data)
        {
            await WriteAsync(segment, cancellationToken);
        }
    }

    public async ValueTask WriteAsync(ReadOnlyMemory<byte> data, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_done, this);
        Length += data.Length;
        while (!data.IsEmpty)
        {
            _buffer ??= pool.Rent(s3.Options.PartBytes);
            var count = Math.Min(data.Length, s3.Options.PartBytes - _filled);
            data.Span[..count].CopyTo(_buffer.AsSpan(_filled));
            _filled += count;
            data = data[count..];
            if (_filled == s3.Options.PartBytes)
            {
                await SendBufferAsPartAsync(cancellationToken);
            }
        }
    }

    public async ValueTask<ObjectInfo> CommitAsync(ObjectCommit commit, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(commit);
        ObjectDisposedException.ThrowIf(_done, this);
        // The files API and tus bring the ETag they hashed while streaming; without one the store derives it
        // (XXH3-128, as the other stores do) from the buffer, or once from the staged object — never per chunk.
        ObjectInfo info;
        if (_multipart is null)
        {
            var content = _buffer.AsMemory(0, _filled);
            var etag = commit.ETag ?? FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(content.Span));
            info = await store.PutWholeAsync(key, content, commit, etag, cancellationToken);
        }
        else
        {
            if (_filled > 0)
            {
                await SendBufferAsPartAsync(cancellationToken);
            }

            await _multipart.CompleteAsync(cancellationToken);
            var etag = commit.ETag ?? await store.HashStagedAsync(_multipart.ObjectKey, cancellationToken);
            info = await store.CommitStagedAsync(_multipart.ObjectKey, key, Length, commit, etag, cancellationToken);
        }

        _done = true;
        ReturnBuffer();
        return info;
    }

    public async ValueTask DisposeAsync()
    {
        _done = true;
        ReturnBuffer();
        if (_multipart is not null)
        {
            await _multipart.DisposeAsync();
        }
    }

    private async ValueTask SendBufferAsPartAsync(CancellationToken cancellationToken)
    {
        _multipart ??= await S3MultipartUpload.StartAsync(s3, pool, store.NewStagingKey(), cancellationToken);
        var full = _buffer!;
        var length = _filled;
        _buffer = null;
        _filled = 0;
        await _multipart.AddPartAsync(full, length, cancellationToken);
    }

    private void ReturnBuffer()
    {
        if (_buffer is not null)
        {
            pool.Return(_buffer);
            _buffer = null;
        }
    }
}
