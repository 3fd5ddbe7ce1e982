using System.Buffers;

namespace Freight.Multipart;

/// <summary>
/// Finds the multipart delimiter (RFC 2046 §5.1.1: CRLF "--" boundary) in a possibly multi-segment buffer with
/// vectorized span searches, and says how much data can be handed out when the buffer ends in a partial delimiter.
/// </summary>
internal static class DelimiterSearch
{
    /// <summary>
    /// Returns true and the start of the first delimiter when <paramref name="buffer"/> contains a full one.
    /// Otherwise returns false and <paramref name="safeEnd"/>: the end of the data that cannot be part of a
    /// delimiter (everything before a trailing delimiter prefix that more data could complete).
    /// </summary>
    public static bool TryFind(
        in ReadOnlySequence<byte> buffer,
        ReadOnlySpan<byte> delimiter,
        out SequencePosition matchStart,
        out SequencePosition safeEnd)
    {
        if (buffer.IsSingleSegment)
        {
            var span = buffer.FirstSpan;
            var index = span.IndexOf(delimiter);
            if (index >= 0)
            {
                matchStart = buffer.GetPosition(index);
                safeEnd = matchStart;
                return true;
            }

            matchStart = default;
            safeEnd = buffer.GetPosition(span.Length - PartialLength(span, delimiter));
            return false;
        }

        return TryFindMultiSegment(buffer, delimiter, out matchStart, out safeEnd);
    }

    private static bool TryFindMultiSegment(
        in ReadOnlySequence<byte> buffer,
        ReadOnlySpan<byte> delimiter,
        out SequencePosition matchStart,
        out SequencePosition safeEnd)
    {
        var segmentStart = buffer.Start;
        var next = segmentStart;
        while (buffer.TryGet(ref next, out var memory))
        {
            var span = memory.Span;

            // A match inside this segment always starts before one that straddles into the next segment.
            var index = span.IndexOf(delimiter);
            if (index >= 0)
            {
                matchStart = buffer.GetPosition(index, segmentStart);
                safeEnd = matchStart;
                return true;
            }

            var partial = PartialLength(span, delimiter);
            if (partial > 0)
            {
                var start = span.Length - partial;
                // TryGet leaves `next` at default after the last segment: nothing follows yet.
                var continuation = next.GetObject() is null
                    ? Continuation.NeedMoreData
                    : MatchContinuation(buffer.Slice(next), delimiter[partial..]);
                switch (continuation)
                {
                    case Continuation.Match:
                        matchStart = buffer.GetPosition(start, segmentStart);
                        safeEnd = matchStart;
                        return true;
                    case Continuation.NeedMoreData:
                        matchStart = default;
                        safeEnd = buffer.GetPosition(start, segmentStart);
                        return false;
                }
            }

            segmentStart = next;
        }

        matchStart = default;
        safeEnd = buffer.End;
        return false;
    }

    /// <summary>
    /// Length of the longest suffix of <paramref name="span"/> that is a proper prefix of <paramref name="delimiter"/>.
    /// The delimiter's only CR is its first byte (bchars exclude CR), so only the last CR in the final
    /// delimiter.Length - 1 bytes can start such a suffix.
    /// </summary>
    internal static int PartialLength(ReadOnlySpan<byte> span, ReadOnlySpan<byte> delimiter)
    {
        var window = Math.Min(span.Length, delimiter.Length - 1);
        var tail = span[^window..];
        var cr = tail.LastIndexOf(delimiter[0]);
        if (cr < 0)
        {
            return 0;
        }

        var candidate = tail[cr..];
        return delimiter.StartsWith(candidate) ? candidate.Length : 0;
    }

    private static Continuation MatchContinuation(in ReadOnlySequence<byte> rest, ReadOnlySpan<byte> remaining)
    {
        foreach (var memory in rest)
        {
            var span = memory.Span;
            var length = Math.Min(span.Length, remaining.Length);
            if (!span[..length].SequenceEqual(remaining[..length]))
            {
                return Continuation.Mismatch;
            }

            remaining = remaining[length..];
            if (remaining.IsEmpty)
            {
                return Continuation.Match;
            }
        }

        return Continuation.NeedMoreData;
    }

    private enum Continuation
    {
        Mismatch,
        Match,
        NeedMoreData,
    }
}
