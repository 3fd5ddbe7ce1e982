namespace Freight.Storage;

/// <summary>
/// A byte range of an <see cref="IObjectReader"/> read forward through <see cref="IObjectReader.ReadAsync"/>:
/// never past the range, and an <see cref="EndOfStreamException"/> if the object ends before it does.
/// Asynchronous reads only: the reader has no synchronous API to read through.
/// </summary>
internal sealed class ObjectReaderStream : Stream
{
    private readonly IObjectReader _reader;
    private readonly long _offset;
    private readonly long _length;
    private long _position;

    public ObjectReaderStream(IObjectReader reader, long offset, long length)
    {
        ArgumentNullException.ThrowIfNull(reader);
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        _reader = reader;
        _offset = offset;
        _length = length;
    }

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => _length;

    public override long Position
    {
        get => _position;
        set => throw new NotSupportedException();
    }

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        var remaining = _length - _position;
        if (remaining <= 0 || buffer.IsEmpty)
        {
            return 0;
        }

        var read = await _reader.ReadAsync(_offset + _position, buffer[..(int)Math.Min(buffer.Length, remaining)], cancellationToken);
        if (read == 0)
        {
            throw new EndOfStreamException($"'{_reader.Info.Key}' ended {remaining} bytes before the range did.");
        }

        _position += read;
        return read;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    // IObjectReader only reads asynchronously; blocking on it here would be sync-over-async, a thread held per read.
    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException("Read the range with ReadAsync.");

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
