using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Http.Features;

namespace Freight.AspNetCore.Files;

/// <summary>
/// A followed upload's <see cref="Microsoft.AspNetCore.Http.HttpRequest.Body"/> (<see cref="UploadLimiter.Follow"/>):
/// Kestrel's request stream, over the same reader and read the same way (copy out of the pipe, consume what was copied,
/// a canceled read throws, a synchronous read only where the request allows it), but giving a canceled read back before
/// it throws. Kestrel's leaves the read taken ("Reading is already in progress"), so once the host's stop cut an upload
/// read as a stream (the lab's stock variants, a form read), Kestrel could not read off the rest of its body after the
/// 503, closed the connection with it unread, and a client still sending was reset.
/// </summary>
internal sealed class FollowedBodyStream(PipeReader reader, IHttpBodyControlFeature? control) : Stream
{
    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override int Read(byte[] buffer, int offset, int count)
    {
        if (control is not { AllowSynchronousIO: true })
        {
            throw new InvalidOperationException("Synchronous operations are disallowed. Call ReadAsync or set AllowSynchronousIO to true instead.");
        }

        return ReadAsync(buffer.AsMemory(offset, count)).AsTask().GetAwaiter().GetResult();
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    // Pooled: a stream read completes asynchronously whenever the client is slower than the server (the lab's stock
    // variants read 4 KiB at a time), and an async method's state machine box would otherwise be allocated per read.
    // (The loop is Kestrel's own HttpRequestStream's, so that the lab's stock variants still measure it.)
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<int> ReadAsync(Memory<byte> destination, CancellationToken cancellationToken = default)
    {
        while (true)
        {
            var result = await reader.ReadAsync(cancellationToken);
            var buffer = result.Buffer;
            if (result.IsCanceled)
            {
                reader.AdvanceTo(buffer.Start);
                throw new OperationCanceledException("The read was canceled.");
            }

            if (!buffer.IsEmpty || result.IsCompleted)
            {
                var copied = (int)Math.Min(buffer.Length, destination.Length);
                buffer.Slice(0, copied).CopyTo(destination.Span);
                reader.AdvanceTo(buffer.GetPosition(copied));
                return copied;
            }

            reader.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
