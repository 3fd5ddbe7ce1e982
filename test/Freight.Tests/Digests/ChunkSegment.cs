using System.Buffers;

namespace Freight.Tests.Digests;

/// <summary>One link of a hand-built multi-segment <see cref="ReadOnlySequence{T}"/>.</summary>
internal sealed class ChunkSegment : ReadOnlySequenceSegment<byte>
{
    public ChunkSegment(ReadOnlyMemory<byte> memory, long runningIndex)
    {
        Memory = memory;
        RunningIndex = runningIndex;
    }

    public ChunkSegment Append(ReadOnlyMemory<byte> memory)
    {
        var next = new ChunkSegment(memory, RunningIndex + Memory.Length);
        Next = next;
        return next;
    }
}
