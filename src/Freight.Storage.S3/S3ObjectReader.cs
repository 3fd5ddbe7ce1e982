using Microsoft.Win32.SafeHandles;

namespace Freight.Storage.S3;

/// <summary>
/// One version of an S3 object, read by ranged GETs pinned to it with If-Match on S3's ETag. S3 keeps no old
/// version (without bucket versioning): if the object is replaced while this reader is open, reads fail with
/// an <see cref="ObjectReplacedException"/> instead of returning another version's bytes under this one's ETag.
/// </summary>
internal sealed class S3ObjectReader(S3Connection s3, string objectKey, ObjectInfo info, string s3ETag) : IObjectReader
{
    // A sequential reader (digests, copies) continues one open GET instead of paying a request per call.
    private HttpResponseMessage? _response;
    private Stream? _body;
    private long _bodyPosition;

    public ObjectInfo Info { get; } = info;

    public SafeFileHandle? FileHandle => null;

    public ReadOnlyMemory<byte>? Content => null;

    public async ValueTask<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default)
    {
        if (offset >= Info.Length || destination.IsEmpty)
        {
            return 0;
        }

        if (_body is null || _bodyPosition != offset)
        {
            CloseBody();
            _response = await S3Transfers.GetAsync(s3, objectKey, s3ETag, offset, length: null, cancellationToken);
            _body = await _response.Content.ReadAsStreamAsync(cancellationToken);
            _bodyPosition = offset;
        }

        var read = await _body.ReadAsync(destination[..(int)Math.Min(destination.Length, Info.Length - offset)], cancellationToken);
        if (read == 0)
        {
            throw new EndOfStreamException($"'{Info.Key}' ended at {offset} of {Info.Length} bytes.");
        }

        _bodyPosition += read;
        return read;
    }

    public async ValueTask<Stream> OpenRangeAsync(long offset, long length, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        if (length == 0)
        {
            return Stream.Null;
        }

        var whole = offset == 0 && length == Info.Length;
        var response = await S3Transfers.GetAsync(s3, objectKey, s3ETag, offset, whole ? null : length, cancellationToken);
        return new ResponseStream(response, await response.Content.ReadAsStreamAsync(cancellationToken));
    }

    public ValueTask DisposeAsync()
    {
        CloseBody();
        return ValueTask.CompletedTask;
    }

    private void CloseBody()
    {
        _body?.Dispose();
        _response?.Dispose();
        _body = null;
        _response = null;
    }

    /// <summary>A GET's body that releases its response (and so its connection) when disposed.</summary>
    private sealed class ResponseStream(HttpResponseMessage response, Stream body) : Stream
    {
        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => body.ReadAsync(buffer, cancellationToken);

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => body.ReadAsync(buffer, offset, count, cancellationToken);

        public override int Read(byte[] buffer, int offset, int count) => body.Read(buffer, offset, count);

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                body.Dispose();
                response.Dispose();
            }

            base.Dispose(disposing);
        }
    }
}
