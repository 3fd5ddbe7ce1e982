using System.Buffers;
using Microsoft.Extensions.Primitives;

namespace Freight.Downloads;

/// <summary>
/// A Range header (RFC 9110 §14.2) read against a representation of known length: ignore it, answer 416,
/// or send these ranges. Only the <c>bytes</c> unit (§14.1.2) is understood. Ranges come clipped to the
/// length; overlapping or adjacent ones are coalesced (§14.6), and a set that needs more than
/// <see cref="MaxRanges"/> parts is ignored (§14.2, §17.15).
/// </summary>
public sealed class ByteRangeSet
{
    /// <summary>
    /// Most parts (after coalescing) one response carries; a Range that needs more is ignored and the whole
    /// representation sent (200). RFC 9110 §17.15: every range costs the server a read and a part head
    /// while it costs the client a few request bytes. Real clients ask for a handful (PDF viewers, download
    /// managers, media players ask for one); 100 leaves them ample room and bounds the part heads of one
    /// response to about 10 KB on top of at most the representation itself (coalescing removes overlaps).
    /// </summary>
    public const int MaxRanges = 100;

    // Ranges of a header with up to this many elements are parsed on the stack; longer ones rent from the pool.
    private const int StackRanges = 16;

    private static readonly ByteRangeSet s_ignore = new(ByteRangeOutcome.Ignore, []);
    private static readonly ByteRangeSet s_unsatisfiable = new(ByteRangeOutcome.Unsatisfiable, []);

    private readonly ByteRange[] _ranges;

    private ByteRangeSet(ByteRangeOutcome outcome, ByteRange[] ranges)
    {
        Outcome = outcome;
        _ranges = ranges;
    }

    /// <summary>Whether the Range header applies, is ignored, or cannot be satisfied.</summary>
    public ByteRangeOutcome Outcome { get; }

    /// <summary>
    /// The ranges to send when <see cref="Outcome"/> is <see cref="ByteRangeOutcome.Satisfiable"/>, else empty.
    /// In the order the request listed them (§14.6 asks for that) unless some were coalesced; then ascending.
    /// </summary>
    public IReadOnlyList<ByteRange> Ranges => _ranges;

    /// <summary>Reads the Range header field value(s) <paramref name="range"/> for a representation of <paramref name="length"/> bytes.</summary>
    public static ByteRangeSet Parse(StringValues range, long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);

        // Range is a singleton field (§14.2: Range = ranges-specifier, not a list): two field lines combine
        // into something that is no ranges-specifier.
        return range.Count == 1 ? Parse(range[0].AsSpan(), length) : s_ignore;
    }

    /// <summary>Reads the Range header field value <paramref name="range"/> for a representation of <paramref name="length"/> bytes.</summary>
    public static ByteRangeSet Parse(ReadOnlySpan<char> range, long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        var value = TrimOws(range);

        // ranges-specifier = range-unit "=" range-set (§14.1.1), no whitespace around "="; unit names are
        // case-insensitive (§14.1). Another unit is one we do not support: ignored (§14.2).
        var equals = value.IndexOf('=');
        if (equals < 0 || !value[..equals].Equals("bytes", StringComparison.OrdinalIgnoreCase))
        {
            return s_ignore;
        }

        var set = value[(equals + 1)..];
        var elements = set.Count(',') + 1;
        ByteRange[]? rented = null;
        Span<ByteRange> buffer = elements <= StackRanges
            ? stackalloc ByteRange[2 * StackRanges]
            : (rented = ArrayPool<ByteRange>.Shared.Rent(2 * elements));
        try
        {
            return Parse(set, length, buffer[..elements], buffer.Slice(elements, elements));
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<ByteRange>.Shared.Return(rented);
            }
        }
    }

    private static ByteRangeSet Parse(ReadOnlySpan<char> set, long length, Span<ByteRange> requested, Span<ByteRange> sorted)
    {
        var specs = 0;
        var count = 0;
        var emptyRepresentationSuffix = false;
        foreach (var element in set.Split(','))
        {
            // §5.6.1.2: a recipient accepts and skips empty list elements ("bytes=0-1,,5-9", "bytes=0-1,"); OWS
            // may surround each element (§5.6.1). Inside a range-spec no whitespace is allowed.
            var spec = TrimOws(set[element]);
            if (spec.IsEmpty)
            {
                continue;
            }

            specs++;

            // §14.1.1: one invalid range-spec (bad syntax, last-pos < first-pos, another unit's other-range)
            // makes the whole ranges-specifier invalid, and §14.2 lets the server ignore it.
            if (!TryParseSpec(spec, out var first, out var last, out var isSuffix))
            {
                return s_ignore;
            }

            if (isSuffix)
            {
                // §14.1.2: a suffix-range is satisfiable when its length is non-zero; one longer than the
                // representation selects all of it. Here "first" holds the suffix-length.
                if (first == 0)
                {
                    continue;
                }

                if (length == 0)
                {
                    emptyRepresentationSuffix = true;
                    continue;
                }

                requested[count++] = new ByteRange(length - Math.Min(first, length), length - 1);
            }
            else if (first < length)
            {
                // §14.1.2: an int-range is satisfiable when first-pos < length; a last-pos that is absent or
                // past the end is replaced by length - 1.
                requested[count++] = new ByteRange(first, Math.Min(last, length - 1));
            }
        }

        // range-set = 1#range-spec: "bytes=" and "bytes=," hold none, so they are invalid.
        if (specs == 0)
        {
            return s_ignore;
        }

        if (count == 0)
        {
            // §14.1.2: a zero-length representation satisfies a non-zero suffix-range, yet a 206 cannot carry
            // zero bytes (§14.4: last-pos ≥ first-pos); §14.2 lets the server ignore the Range, so such a request
            // gets 200 with the empty representation. Anything else satisfies nothing: 416.
            return emptyRepresentationSuffix ? s_ignore : s_unsatisfiable;
        }

        var merged = Coalesce(requested[..count], sorted);

        // §14.6 asks for the parts in the request's order, "excluding those ranges that were ... coalesced":
        // with nothing coalesced the request's order stands; otherwise the merged ranges go in ascending order.
        var ranges = merged == count ? requested[..count] : sorted[..merged];

        // §14.2: a server MAY ignore a Range with many small or overlapping ranges (a DoS sign, §17.15).
        return ranges.Length > MaxRanges ? s_ignore : new ByteRangeSet(ByteRangeOutcome.Satisfiable, ranges.ToArray());
    }

    /// <summary>
    /// Copies <paramref name="ranges"/> into <paramref name="sorted"/> in ascending order and merges ranges
    /// that overlap or touch (§14.6: a server MAY coalesce overlapping ranges); returns how many remain.
    /// Touching ranges ("0-9,10-19") merge too: one part instead of two costs the client nothing extra.
    /// </summary>
    private static int Coalesce(ReadOnlySpan<ByteRange> ranges, Span<ByteRange> sorted)
    {
        ranges.CopyTo(sorted);
        sorted = sorted[..ranges.Length];
        sorted.Sort(static (a, b) => a.First.CompareTo(b.First));
        var kept = 0;
        for (var i = 1; i < sorted.Length; i++)
        {
            // Last ≤ length - 1, so Last + 1 cannot overflow.
            if (sorted[i].First <= sorted[kept].Last + 1)
            {
                sorted[kept] = new ByteRange(sorted[kept].First, Math.Max(sorted[kept].Last, sorted[i].Last));
            }
            else
            {
                sorted[++kept] = sorted[i];
            }
        }

        return kept + 1;
    }

    /// <summary>
    /// int-range = first-pos "-" [ last-pos ], suffix-range = "-" suffix-length (§14.1.1). For a suffix-range,
    /// <paramref name="first"/> is the suffix-length; an absent last-pos comes back as <see cref="long.MaxValue"/>.
    /// </summary>
    private static bool TryParseSpec(ReadOnlySpan<char> spec, out long first, out long last, out bool isSuffix)
    {
        last = long.MaxValue;
        isSuffix = spec[0] == '-';
        if (isSuffix)
        {
            return TryParsePosition(spec[1..], out first);
        }

        var dash = spec.IndexOf('-');
        if (dash < 0)
        {
            first = 0;
            return false;
        }

        var firstDigits = spec[..dash];
        var lastDigits = spec[(dash + 1)..];
        if (!TryParsePosition(firstDigits, out first))
        {
            return false;
        }

        if (lastDigits.IsEmpty)
        {
            return true;
        }

        if (!TryParsePosition(lastDigits, out last))
        {
            return false;
        }

        // §14.1.1: an int-range with last-pos < first-pos is invalid. Both saturated: compare the numerals.
        return first == long.MaxValue && last == long.MaxValue
            ? CompareNumerals(lastDigits, firstDigits) >= 0
            : last >= first;
    }

    /// <summary>
    /// 1*DIGIT as a non-negative number. §14.1.2: recipients "MUST anticipate potentially large decimal numerals
    /// and prevent parsing errors due to integer conversion overflows": a numeral past <see cref="long.MaxValue"/>
    /// saturates to it. A first-pos that large is past any representation's end (unsatisfiable), a last-pos or
    /// suffix-length that large means "to the end" / "all of it" — the same answer the exact value gives.
    /// </summary>
    private static bool TryParsePosition(ReadOnlySpan<char> digits, out long value)
    {
        value = 0;
        if (digits.IsEmpty)
        {
            return false;
        }

        foreach (var c in digits)
        {
            if (!char.IsAsciiDigit(c))
            {
                return false;
            }

            var digit = c - '0';
            value = value > (long.MaxValue - digit) / 10 ? long.MaxValue : (value * 10) + digit;
        }

        return true;
    }

    /// <summary>Compares two all-digit numerals by value, whatever their length.</summary>
    private static int CompareNumerals(ReadOnlySpan<char> a, ReadOnlySpan<char> b)
    {
        a = a.TrimStart('0');
        b = b.TrimStart('0');
        return a.Length != b.Length ? a.Length.CompareTo(b.Length) : a.SequenceCompareTo(b);
    }

    // OWS = *( SP / HTAB ) (§5.6.3).
    private static ReadOnlySpan<char> TrimOws(ReadOnlySpan<char> value) => value.Trim(" \t");
}
