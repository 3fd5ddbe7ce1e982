using System.Buffers;

namespace Freight.Tests.Digests;

/// <summary>Splits bytes into a <see cref="ReadOnlySequence{T}"/> of several segments, as a pipe hands them over.</summary>
internal static class ChunkedSequence
{
    /// <summary>Segments of the given sizes in turn (the last size repeats); empty segments are allowed.</summary>
    public static ReadOnlySequence<byte> Create(byte[] data, params int[] sizes)
    {
        var first = new ChunkSegment(Slice(data, 0, sizes[0]), 0);
        var last = first;
        var offset = first.Memory.Length;
        for (var i = 1; offset < data.Length; i++)
        {
            last = last.Append(Slice(data, offset, sizes[Math.Min(i, sizes.Length - 1)]));
            offset += last.Memory.Length;
        }

        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    private static ReadOnlyMemory<byte> Slice(byte[] data, int offset, int size) =>
        data.AsMemory(offset, Math.Min(size, data.Length - offset));
}
