using System.Buffers;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace Freight.Multipart;

/// <summary>
/// Finds the multipart delimiter (RFC 2046 §5.1.1: CRLF "--" boundary) in a possibly multi-segment buffer with
/// a vectorized search of its own (<see cref="IndexOf"/>), and says how much data can be handed out when the buffer
/// ends in a partial delimiter.
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
            var index = IndexOf(span, delimiter);
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
            var index = IndexOf(span, delimiter);
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
    /// Index of the first <paramref name="delimiter"/> in <paramref name="span"/>, or -1. A candidate must match five
    /// anchors at once, compared 32 bytes at a time: the delimiter's first four bytes (CR LF "-" "-") and its last one.
    /// </summary>
    /// <remarks>
    /// Why not <c>span.IndexOf(delimiter)</c>: .NET's vectorized search anchors on two bytes, the first and the last
    /// (Rust's memchr "packed pair" also takes two, the rarest by a table of byte frequencies). The boundary is in the
    /// request's Content-Type, so a client can write a body with a candidate every 2 bytes ("\r9" repeated for a
    /// delimiter of odd length − 1 ending in 9), each compared in full: 19.5× the time of a normal body in the micro
    /// suite (docs/results/2026-11-25-micro.md). Rarity cannot help against a body written for the boundary; more
    /// anchors can. CR LF "-" "-" are four different bytes and CR occurs nowhere else in a delimiter (bchars exclude
    /// it), so two candidates are at least 4 bytes apart whatever the body; the last byte, 40-odd bytes on, rules out
    /// most periodic bodies that pass the first four. The first and last byte are compared first and the other three
    /// only in a block where those two agree somewhere, so ordinary data costs what IndexOf's two anchors cost.
    /// </remarks>
    // Fully optimized from the first call: measured as the first case of a micro run, the tiered (OSR) code of this
    // loop read the normal body at 10 GB/s a core against 34 once promoted; CoreLib's IndexOf is precompiled.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal static int IndexOf(ReadOnlySpan<byte> span, ReadOnlySpan<byte> delimiter)
    {
        const int Anchored = 4;
        var last = delimiter.Length - 1;
        var offset = 0;
        if (Vector256.IsHardwareAccelerated && delimiter.Length > Anchored)
        {
            var first0 = Vector256.Create(delimiter[0]);
            var first1 = Vector256.Create(delimiter[1]);
            var first2 = Vector256.Create(delimiter[2]);
            var first3 = Vector256.Create(delimiter[3]);
            var lastByte = Vector256.Create(delimiter[last]);
            var middle = delimiter[Anchored..last];
            ref var start = ref MemoryMarshal.GetReference(span);

            // Every load stays inside the span: the farthest reads 32 bytes from offset + last.
            var lastOffset = span.Length - last - Vector256<byte>.Count;
            for (; offset <= lastOffset; offset += Vector256<byte>.Count)
            {
                var at = (nuint)offset;
                var candidates = Vector256.Equals(Vector256.LoadUnsafe(ref start, at), first0)
                    & Vector256.Equals(Vector256.LoadUnsafe(ref start, at + (nuint)last), lastByte);
                if (candidates == Vector256<byte>.Zero)
                {
                    // Ordinary data ends here, at the cost of a two-anchor search: with all five compares on every
                    // block the micro suite's normal body took 1.47 ms a 20 MiB parse, against 1.21 with IndexOf.
                    continue;
                }

                candidates &= Vector256.Equals(Vector256.LoadUnsafe(ref start, at + 1), first1)
                    & Vector256.Equals(Vector256.LoadUnsafe(ref start, at + 2), first2)
                    & Vector256.Equals(Vector256.LoadUnsafe(ref start, at + 3), first3);
                var mask = candidates.ExtractMostSignificantBits();
                while (mask != 0)
                {
                    var candidate = offset + BitOperations.TrailingZeroCount(mask);
                    if (span.Slice(candidate + Anchored, middle.Length).SequenceEqual(middle))
                    {
                        return candidate;
                    }

                    mask &= mask - 1;
                }
            }
        }

        // The tail (fewer than delimiter.Length + 31 bytes), or all of it without 256-bit vectors.
        var rest = span[offset..].IndexOf(delimiter);
        return rest < 0 ? -1 : offset + rest;
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
