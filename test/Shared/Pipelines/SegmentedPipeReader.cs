using System.Buffers;
using System.IO.Pipelines;

namespace Freight.Testing.Pipelines;

/// <summary>One buffer segment of a test <see cref="ReadOnlySequence{T}"/>.</summary>
internal sealed class TestSegment : ReadOnlySequenceSegment<byte>
{
    public TestSegment(ReadOnlyMemory<byte> memory, long runningIndex)
    {
        Memory = memory;
        RunningIndex = runningIndex;
    }

    public void SetNext(TestSegment next) => Next = next;
}

/// <summary>
/// A deterministic <see cref="PipeReader"/> that reveals one piece (its own segment) each time the reader has
/// examined everything, as a <see cref="Pipe"/> does when new data arrives; completion is revealed last. It fails if
/// the reader re-reads without consuming or examining anything new (it would spin on a real pipe).
/// </summary>
internal sealed class SegmentedPipeReader : PipeReader
{
    private readonly List<TestSegment> _segments = [];
    private readonly long[] _pieceEnds;
    private int _revealed;
    private bool _completed;
    private long _available;
    private long _consumed;
    private long _examined;
    private long _readStart;
    private bool _progress = true;

    public SegmentedPipeReader(IReadOnlyList<ReadOnlyMemory<byte>> pieces)
    {
        var ends = new List<long>();
        long runningIndex = 0;
        foreach (var piece in pieces)
        {
            if (piece.IsEmpty)
            {
                continue;
            }

            var segment = new TestSegment(piece, runningIndex);
            if (_segments.Count > 0)
            {
                _segments[^1].SetNext(segment);
            }

            _segments.Add(segment);
            runningIndex += piece.Length;
            ends.Add(runningIndex);
        }

        _pieceEnds = [.. ends];
    }

    public bool IsReading { get; private set; }

    public override bool TryRead(out ReadResult result)
    {
        if (IsReading)
        {
            throw new InvalidOperationException("Reading is already in progress.");
        }

        var newData = false;
        if (_examined == _available)
        {
            if (_revealed < _pieceEnds.Length)
            {
                _available = _pieceEnds[_revealed++];
                newData = true;
            }
            else if (!_completed)
            {
                _completed = true;
                newData = true;
            }
        }

        if (!newData && !_progress)
        {
            throw new InvalidOperationException("Re-read without consuming or examining anything: the reader would spin.");
        }

        _progress = false;
        IsReading = true;
        _readStart = _consumed;
        result = new ReadResult(Slice(_consumed, _available), isCanceled: false, isCompleted: _completed);
        return true;
    }

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
    {
        TryRead(out var result);
        return ValueTask.FromResult(result);
    }

    public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        if (!IsReading)
        {
            throw new InvalidOperationException("AdvanceTo without a read in progress.");
        }

        var c = Offset(consumed);
        var e = Offset(examined);
        if (c < _readStart || e < c || e > _available)
        {
            throw new InvalidOperationException($"Bad AdvanceTo({c}, {e}) for buffer [{_readStart}, {_available}).");
        }

        _progress = c > _consumed || e > _examined;
        _consumed = c;
        _examined = Math.Max(e, _examined);
        IsReading = false;
    }

    public override void CancelPendingRead()
    {
    }

    public override void Complete(Exception? exception = null)
    {
    }

    private static long Offset(SequencePosition position) =>
        position.GetObject() is TestSegment segment ? segment.RunningIndex + position.GetInteger() : 0;

    private ReadOnlySequence<byte> Slice(long start, long end)
    {
        if (_segments.Count == 0)
        {
            return ReadOnlySequence<byte>.Empty;
        }

        var first = 0;
        while (first < _segments.Count - 1 && _segments[first].RunningIndex + _segments[first].Memory.Length <= start)
        {
            first++;
        }

        var last = first;
        while (last < _segments.Count - 1 && _segments[last].RunningIndex + _segments[last].Memory.Length < end)
        {
            last++;
        }

        return new ReadOnlySequence<byte>(
            _segments[first], (int)(start - _segments[first].RunningIndex),
            _segments[last], (int)(end - _segments[last].RunningIndex));
    }
}
