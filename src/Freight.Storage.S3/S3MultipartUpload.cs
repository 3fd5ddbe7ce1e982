using System.Buffers;
using Amazon.S3.Model;

namespace Freight.Storage.S3;

/// <summary>
/// One S3 multipart upload fed part by part: each part is uploaded in the background from a pooled buffer,
/// at most <see cref="S3StoreOptions.PartsInFlight"/> at once (the next <see cref="AddPartAsync"/> waits for a
/// slot), so memory stays bounded whatever the object's size. <see cref="CompleteAsync"/> joins the parts;
/// <see cref="AbortAsync"/> (or disposing an uncompleted upload) removes them from the server.
/// </summary>
internal sealed class S3MultipartUpload : IAsyncDisposable
{
    private readonly S3Connection _s3;
    private readonly ArrayPool<byte> _pool;
    private readonly SemaphoreSlim _slots;
    private readonly List<Task<PartETag>> _parts = [];
    private bool _finished;

    private S3MultipartUpload(S3Connection s3, ArrayPool<byte> pool, string objectKey, string uploadId)
    {
        _s3 = s3;
        _pool = pool;
        ObjectKey = objectKey;
        UploadId = uploadId;
        _slots = new SemaphoreSlim(s3.Options.PartsInFlight, s3.Options.PartsInFlight);
    }

    public string ObjectKey { get; }

    public string UploadId { get; }

    public static async Task<S3MultipartUpload> StartAsync(S3Connection s3, ArrayPool<byte> pool, string objectKey, CancellationToken cancellationToken)
    {
        var started = await s3.Client.InitiateMultipartUploadAsync(new InitiateMultipartUploadRequest { BucketName = s3.Bucket, Key = objectKey }, cancellationToken);
        return new S3MultipartUpload(s3, pool, objectKey, started.UploadId);
    }

    /// <summary>
    /// Uploads <paramref name="length"/> bytes of <paramref name="buffer"/> (rented from the pool; this upload
    /// returns it) as the next part, in the background once a slot is free. A part that failed earlier fails this call.
    /// </summary>
    public async ValueTask AddPartAsync(byte[] buffer, int length, CancellationToken cancellationToken)
    {
        try
        {
            await _slots.WaitAsync(cancellationToken);
        }
        catch
        {
            _pool.Return(buffer);
            throw;
        }

        ThrowIfAPartFailed();
        var partNumber = _parts.Count + 1;
        _parts.Add(UploadAsync(partNumber, buffer, length, cancellationToken));
    }

    /// <summary>Waits for every part, then joins them into the object.</summary>
    public async Task CompleteAsync(CancellationToken cancellationToken)
    {
        var parts = await Task.WhenAll(_parts);
        await _s3.Client.CompleteMultipartUploadAsync(
            new CompleteMultipartUploadRequest { BucketName = _s3.Bucket, Key = ObjectKey, UploadId = UploadId, PartETags = [.. parts] },
            cancellationToken);
        _finished = true;
    }

    /// <summary>Waits for parts still going up (their buffers go back to the pool), then removes the upload and its parts.</summary>
    public async Task AbortAsync()
    {
        if (_finished)
        {
            return;
        }

        _finished = true;
        try
        {
            await Task.WhenAll(_parts);
        }
        catch (Exception)
        {
            // A failed part is why we abort; the abort below removes whatever did arrive.
        }

        await _s3.Client.AbortMultipartUploadAsync(new AbortMultipartUploadRequest { BucketName = _s3.Bucket, Key = ObjectKey, UploadId = UploadId }, CancellationToken.None);
    }

    public async ValueTask DisposeAsync()
    {
        await AbortAsync();
        _slots.Dispose();
    }

    private async Task<PartETag> UploadAsync(int partNumber, byte[] buffer, int length, CancellationToken cancellationToken)
    {
        try
        {
            // Off the caller's stack: the request pipe keeps flowing into the next buffer meanwhile.
            await Task.Yield();
            var etag = await S3Transfers.UploadPartAsync(_s3, ObjectKey, UploadId, partNumber, buffer.AsMemory(0, length), cancellationToken);
            return new PartETag(partNumber, etag);
        }
        finally
        {
            _pool.Return(buffer);
            _slots.Release();
        }
    }

    private void ThrowIfAPartFailed()
    {
        foreach (var part in _parts)
        {
            if (part.IsFaulted || part.IsCanceled)
            {
                part.GetAwaiter().GetResult();
            }
        }
    }
}
