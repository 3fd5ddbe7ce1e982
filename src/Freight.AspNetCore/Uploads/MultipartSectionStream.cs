using System.Buffers;
using Freight.Multipart;

namespace Freight.AspNetCore.Uploads;

/// <summary>A section's body as a read-only stream: chunks of the request pipe, copied out as the caller reads.</summary>
internal sealed class MultipartSectionStream(MultipartPipeReader reader) : Stream
{
    private ReadOnlySequence<byte> _pending;
    private bool _completed;
    private bool _ended;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_ended, this);
        if (buffer.IsEmpty)
        {
            return 0;
        }

        while (_pending.IsEmpty)
        {
            if (_completed)
            {
                return 0;
            }

            // The chunk is a slice of the pipe's buffer, valid until the reader's next call: held here, copied out below.
            var chunk = await reader.ReadSectionDataAsync(cancellationToken);
            _pending = chunk.Data;
            _completed = chunk.IsCompleted;
        }

        var count = (int)Math.Min(buffer.Length, _pending.Length);
        _pending.Slice(0, count).CopyTo(buffer.Span);
        _pending = _pending.Slice(count);
        return count;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override int Read(byte[] buffer, int offset, int count) =>
        throw new NotSupportedException("Read the section asynchronously: a synchronous read would block a thread on the network.");

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    /// <summary>The next section was asked for: the held chunk belongs to the pipe again.</summary>
    internal void End()
    {
        _ended = true;
        _pending = default;
    }
}
