using System.Buffers;
using System.IO.Pipelines;

namespace Freight.Micro.Multipart;

/// <summary>
/// A <see cref="PipeReader"/> over a body already in memory that behaves as Kestrel's request pipe does under
/// Freight's transport: data arrives one block (<see cref="BlockBytes"/>) at a time, a read returns everything
/// not yet consumed, and a new block is revealed only once the reader has examined all it has. No byte is
/// copied and nothing is allocated per read, so the parser is all that is timed. <see cref="Reset"/> rewinds it.
/// </summary>
public sealed class SegmentedBodyReader : PipeReader
{
    /// <summary>Freight's transport block (FreightServerOptions.TransportBlockBytes, 64 KiB): what one receive fills.</summary>
    public const int BlockBytes = 64 * 1024;

    private readonly BodySegment[] _segments;
    private int _revealed;
    private BodySegment _consumedSegment;
    private int _consumedIndex;
    private bool _examinedAll;

    public SegmentedBodyReader(ReadOnlyMemory<byte> body)
    {
        if (body.IsEmpty)
        {
            throw new ArgumentException("The body is empty.", nameof(body));
        }

        _segments = new BodySegment[(body.Length + BlockBytes - 1) / BlockBytes];
        for (var i = 0; i < _segments.Length; i++)
        {
            var start = i * BlockBytes;
            _segments[i] = new BodySegment(body.Slice(start, Math.Min(BlockBytes, body.Length - start)), start);
            if (i > 0)
            {
                _segments[i - 1].SetNext(_segments[i]);
            }
        }

        _consumedSegment = _segments[0];
        Reset();
    }

    /// <summary>Back to the start of the body, nothing revealed yet.</summary>
    public SegmentedBodyReader Reset()
    {
        _revealed = 0;
        _consumedSegment = _segments[0];
        _consumedIndex = 0;
        _examinedAll = true;
        return this;
    }

    public override bool TryRead(out ReadResult result)
    {
        result = Read();
        return true;
    }

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default) => new(Read());

    public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        _consumedSegment = (BodySegment)consumed.GetObject()!;
        _consumedIndex = consumed.GetInteger();
        var last = _segments[_revealed - 1];
        _examinedAll = ((BodySegment)examined.GetObject()!).RunningIndex + examined.GetInteger() == last.RunningIndex + last.Memory.Length;
    }

    public override void CancelPendingRead() => throw new NotSupportedException();

    public override void Complete(Exception? exception = null)
    {
    }

    private ReadResult Read()
    {
        if (_examinedAll && _revealed < _segments.Length)
        {
            _revealed++;
        }

        _examinedAll = false;
        var last = _segments[_revealed - 1];
        var buffer = new ReadOnlySequence<byte>(_consumedSegment, _consumedIndex, last, last.Memory.Length);
        return new ReadResult(buffer, isCanceled: false, isCompleted: _revealed == _segments.Length);
    }

    private sealed class BodySegment : ReadOnlySequenceSegment<byte>
    {
        public BodySegment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public void SetNext(BodySegment next) => Next = next;
    }
}
