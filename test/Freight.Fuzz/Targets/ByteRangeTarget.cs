using System.Numerics;
using Freight.Downloads;
using Microsoft.Extensions.Primitives;

namespace Freight.Fuzz;

/// <summary>
/// <see cref="ByteRangeSet.Parse(ReadOnlySpan{char}, long)"/>: the first byte picks the representation's length,
/// the rest is the Range value. The outcome and the bytes covered must match a plain model of RFC 9110 §14.1–14.2
/// (arbitrary-precision numbers, list-based merging); the ranges must lie inside the length, never overlap or
/// touch, come in the request's order or ascending, and parse back to themselves.
/// </summary>
internal sealed class ByteRangeTarget : IFuzzTarget
{
    // Lengths at the edges of the arithmetic: a first byte from 0xF0 on picks one of these.
    private static readonly long[] s_edgeLengths =
    [
        long.MaxValue, long.MaxValue - 1, 1L << 62, 1L << 53, 1L << 32, (1L << 32) - 1, 1L << 31, 1_000_000,
        4096, 1000, 256, 101, 100, 2, 1, 0,
    ];

    public string Name => "byte-range";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (input.IsEmpty)
        {
            return;
        }

        var length = input[0] < 0xF0 ? input[0] : s_edgeLengths[input[0] - 0xF0];
        var value = FuzzInput.Latin1(input[1..]);

        var set = ByteRangeSet.Parse(value.AsSpan(), length);
        var viaField = ByteRangeSet.Parse(new StringValues(value), length);
        Invariant.Check(viaField.Outcome == set.Outcome && viaField.Ranges.SequenceEqual(set.Ranges), "one field line parses as its value does");

        var expected = Model(value, length, out var runs, out var satisfiableSpecs);
        Invariant.Check(set.Outcome == expected, $"outcome {set.Outcome}, the model says {expected}");
        if (set.Outcome != ByteRangeOutcome.Satisfiable)
        {
            Invariant.Check(set.Ranges.Count == 0, "only a satisfiable set has ranges");
            return;
        }

        var ranges = set.Ranges;
        Invariant.Check(ranges.Count is >= 1 and <= ByteRangeSet.MaxRanges, "1 to MaxRanges ranges");
        foreach (var range in ranges)
        {
            Invariant.Check(range.First >= 0 && range.First <= range.Last && range.Last < length, $"{range} lies inside 0..{length - 1}");
        }

        var sorted = ranges.OrderBy(range => range.First).ToList();
        for (var i = 1; i < sorted.Count; i++)
        {
            Invariant.Check(sorted[i].First > sorted[i - 1].Last + 1, "no two ranges overlap or touch (they are coalesced)");
        }

        Invariant.Check(sorted.SequenceEqual(runs), "the ranges cover exactly the bytes the request asked for");
        Invariant.Check(
            ranges.SequenceEqual(sorted) || ranges.Count == satisfiableSpecs,
            "ranges come in the request's order unless some were coalesced, then ascending");

        var formatted = "bytes=" + string.Join(',', ranges.Select(range => $"{range.First}-{range.Last}"));
        var again = ByteRangeSet.Parse(formatted.AsSpan(), length);
        Invariant.Check(
            again.Outcome == ByteRangeOutcome.Satisfiable && again.Ranges.SequenceEqual(ranges),
            "the ranges, written back as a Range value, parse to themselves");
    }

    /// <summary>
    /// RFC 9110 §14.1.1/§14.1.2/§14.2 written plainly: the expected outcome and, when satisfiable, the maximal runs
    /// of requested bytes (ascending) and how many range-specs were satisfiable.
    /// </summary>
    private static ByteRangeOutcome Model(string value, long length, out List<ByteRange> runs, out int satisfiableSpecs)
    {
        runs = [];
        satisfiableSpecs = 0;
        var trimmed = value.Trim(' ', '\t');
        var equals = trimmed.IndexOf('=', StringComparison.Ordinal);
        if (equals < 0 || !string.Equals(trimmed[..equals], "bytes", StringComparison.OrdinalIgnoreCase))
        {
            return ByteRangeOutcome.Ignore;
        }

        var specs = 0;
        var emptySuffix = false;
        var requested = new List<ByteRange>();
        foreach (var element in trimmed[(equals + 1)..].Split(','))
        {
            var spec = element.Trim(' ', '\t');
            if (spec.Length == 0)
            {
                continue;
            }

            specs++;
            var dash = spec.IndexOf('-', StringComparison.Ordinal);
            if (dash < 0)
            {
                return ByteRangeOutcome.Ignore;
            }

            var left = spec[..dash];
            var right = spec[(dash + 1)..];
            if (left.Length == 0)
            {
                if (!IsDigits(right))
                {
                    return ByteRangeOutcome.Ignore;
                }

                var suffix = BigInteger.Parse(right, System.Globalization.CultureInfo.InvariantCulture);
                if (suffix.IsZero)
                {
                    continue;
                }

                if (length == 0)
                {
                    emptySuffix = true;
                    continue;
                }

                requested.Add(new ByteRange(length - (long)BigInteger.Min(suffix, length), length - 1));
                continue;
            }

            if (!IsDigits(left) || (right.Length > 0 && !IsDigits(right)))
            {
                return ByteRangeOutcome.Ignore;
            }

            // An absent last-pos means "to the end", whatever first-pos is: "99…9-" is valid, just unsatisfiable.
            var first = BigInteger.Parse(left, System.Globalization.CultureInfo.InvariantCulture);
            BigInteger? last = right.Length == 0 ? null : BigInteger.Parse(right, System.Globalization.CultureInfo.InvariantCulture);
            if (last < first)
            {
                return ByteRangeOutcome.Ignore;
            }

            if (first < length)
            {
                requested.Add(new ByteRange((long)first, (long)BigInteger.Min(last ?? length - 1, length - 1)));
            }
        }

        if (specs == 0)
        {
            return ByteRangeOutcome.Ignore;
        }

        if (requested.Count == 0)
        {
            return emptySuffix ? ByteRangeOutcome.Ignore : ByteRangeOutcome.Unsatisfiable;
        }

        foreach (var range in requested.OrderBy(range => range.First))
        {
            if (runs.Count > 0 && (BigInteger)range.First <= (BigInteger)runs[^1].Last + 1)
            {
                runs[^1] = runs[^1] with { Last = Math.Max(runs[^1].Last, range.Last) };
            }
            else
            {
                runs.Add(range);
            }
        }

        satisfiableSpecs = requested.Count;
        return runs.Count > ByteRangeSet.MaxRanges ? ByteRangeOutcome.Ignore : ByteRangeOutcome.Satisfiable;
    }

    private static bool IsDigits(string text) => text.Length > 0 && text.All(char.IsAsciiDigit);
}
