using System.Buffers;

namespace Freight.Uploads;

/// <summary>
/// What one read of an <see cref="IUploadSource"/> yielded: bytes that stay valid until the source is told they
/// were consumed, whether they are the last, and whether the read was canceled (a PipeReader's CancelPendingRead).
/// </summary>
internal readonly struct UploadChunk(ReadOnlySequence<byte> data, bool isCompleted, bool isCanceled = false)
{
    public ReadOnlySequence<byte> Data { get; } = data;

    public bool IsCompleted { get; } = isCompleted;

    public bool IsCanceled { get; } = isCanceled;
}
