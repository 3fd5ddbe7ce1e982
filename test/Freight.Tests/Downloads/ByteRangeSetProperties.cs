using System.Text;
using CsCheck;
using Freight.Downloads;

namespace Freight.Tests.Downloads;

/// <summary>
/// Range-set algebra (RFC 9110 §14.1.2, §14.2, §14.6) against a byte-by-byte model: generated range-specs, written
/// with random OWS and empty list elements, read against a generated length. The parse must cover exactly the bytes
/// the model marks, coalesce whatever overlaps or touches, and say 416 exactly when nothing is satisfiable.
/// </summary>
public sealed class ByteRangeSetProperties
{
    // A range-spec: an int-range "first-[last]" or a suffix-range "-length" (First holds the suffix length).
    private sealed record Spec(bool IsSuffix, long First, long? Last)
    {
        public override string ToString() => IsSuffix ? $"-{First}" : $"{First}-{Last}";
    }

    private static readonly Gen<Spec> s_spec = Gen.Frequency(
        (3, Gen.Select(Gen.Long[0, 1100], Gen.Long[0, 300].Nullable(), (first, span) => new Spec(false, first, first + span))),
        (1, Gen.Long[0, 1100].Select(suffix => new Spec(true, suffix, null))));

    private static readonly Gen<string> s_ows = Gen.OneOf("", "", "", " ", "\t", "  ");

    private static readonly Gen<(long Length, Spec[] Specs, string Header)> s_request =
        from length in Gen.Frequency((1, Gen.Const(0L)), (1, Gen.Long[1, 10]), (4, Gen.Long[0, 1000]))
        from specs in s_spec.Array[1, 12]
        from separators in s_ows.Array[specs.Length * 2, specs.Length * 2]
        from empties in Gen.Int[0, 2].Array[specs.Length, specs.Length]
        select (length, specs, Write(specs, separators, empties));

    [Fact]
    public void Parse_GeneratedRangeSets_CoverExactlyTheModelsBytes()
    {
        s_request.Sample(request =>
        {
            var (length, specs, header) = request;
            var covered = new bool[length];
            var emptySuffix = false;
            foreach (var spec in specs)
            {
                if (spec.IsSuffix)
                {
                    emptySuffix |= length == 0 && spec.First > 0;
                    for (var b = Math.Max(0, length - spec.First); b < length; b++)
                    {
                        covered[b] = true;
                    }
                }
                else
                {
                    for (var b = spec.First; b <= (spec.Last ?? long.MaxValue) && b < length; b++)
                    {
                        covered[b] = true;
                    }
                }
            }

            var set = ByteRangeSet.Parse(header.AsSpan(), length);
            if (!covered.Contains(true))
            {
                // §14.1.2: nothing satisfiable is 416, except a suffix on an empty representation (ignored: 200).
                Assert.Equal(emptySuffix ? ByteRangeOutcome.Ignore : ByteRangeOutcome.Unsatisfiable, set.Outcome);
                Assert.Empty(set.Ranges);
                return;
            }

            Assert.Equal(ByteRangeOutcome.Satisfiable, set.Outcome);
            var fromParse = new bool[length];
            var sorted = set.Ranges.OrderBy(range => range.First).ToArray();
            for (var i = 0; i < sorted.Length; i++)
            {
                Assert.InRange(sorted[i].First, 0, sorted[i].Last);
                Assert.InRange(sorted[i].Last, sorted[i].First, length - 1);
                if (i > 0)
                {
                    Assert.True(sorted[i].First > sorted[i - 1].Last + 1, $"{sorted[i - 1]} and {sorted[i]} overlap or touch");
                }

                for (var b = sorted[i].First; b <= sorted[i].Last; b++)
                {
                    fromParse[b] = true;
                }
            }

            Assert.Equal(covered, fromParse);
        }, iter: 3000, threads: 1, print: request => $"length {request.Length}: {request.Header}");
    }

    [Fact]
    public void Parse_DisjointRangesAroundMaxRanges_SatisfiableUpToTheLimitIgnoredPast()
    {
        // Disjoint one-byte ranges (every other byte) cannot be coalesced: 100 parts are served, 101 are refused.
        Gen.Int[ByteRangeSet.MaxRanges - 5, ByteRangeSet.MaxRanges + 5].Sample(count =>
        {
            var header = "bytes=" + string.Join(',', Enumerable.Range(0, count).Select(i => $"{2 * i}-{2 * i}"));
            var set = ByteRangeSet.Parse(header.AsSpan(), 2 * count);
            Assert.Equal(count <= ByteRangeSet.MaxRanges ? ByteRangeOutcome.Satisfiable : ByteRangeOutcome.Ignore, set.Outcome);
            Assert.Equal(count <= ByteRangeSet.MaxRanges ? count : 0, set.Ranges.Count);
        }, iter: 50, threads: 1);
    }

    private static string Write(Spec[] specs, string[] separators, int[] empties)
    {
        var text = new StringBuilder("bytes=");
        for (var i = 0; i < specs.Length; i++)
        {
            text.Append(separators[2 * i]).Append(specs[i].ToString()).Append(separators[(2 * i) + 1]);
            text.Append(',', i < specs.Length - 1 ? 1 + empties[i] : empties[i] / 2);
        }

        return text.ToString();
    }
}
