using System.Globalization;
using System.Text;
using BenchmarkDotNet.Attributes;
using Freight.Downloads;

namespace Freight.Micro.Headers;

/// <summary>Range header parsing (<see cref="ByteRangeSet.Parse(ReadOnlySpan{char}, long)"/>) against a 20 MiB representation.</summary>
/// <remarks>Not sealed: BenchmarkDotNet derives from benchmark classes.</remarks>
public class RangeSetBenchmarks
{
    private const long RepresentationBytes = 20 * 1024 * 1024;

    [ParamsSource(nameof(Headers))]
    public TextInput Input { get; set; } = null!;

    public static IEnumerable<TextInput> Headers =>
    [
        new("single", "bytes=0-1048575 (a resumed download's first MiB)", "bytes=0-1048575"),
        new("suffix", "bytes=-500 (the last 500 bytes)", "bytes=-500"),
        new("many", $"{ByteRangeSet.MaxRanges} disjoint ranges (the most one response carries)", ManyRanges(ByteRangeSet.MaxRanges)),
    ];

    [GlobalSetup]
    public void Setup()
    {
        var parsed = ByteRangeSet.Parse(Input.Text, RepresentationBytes);
        if (parsed.Outcome != ByteRangeOutcome.Satisfiable)
        {
            throw new InvalidDataException($"Range '{Input.Name}' parsed to {parsed.Outcome}, expected satisfiable ranges.");
        }
    }

    [Benchmark(Description = "range-set")]
    public ByteRangeSet Parse() => ByteRangeSet.Parse(Input.Text, RepresentationBytes);

    private static string ManyRanges(int count)
    {
        var text = new StringBuilder("bytes=");
        for (var i = 0; i < count; i++)
        {
            // 1 KiB apart with a gap between: nothing coalesces, every range is kept.
            text.Append(CultureInfo.InvariantCulture, $"{(i == 0 ? "" : ",")}{i * 2048}-{(i * 2048) + 1023}");
        }

        return text.ToString();
    }
}
