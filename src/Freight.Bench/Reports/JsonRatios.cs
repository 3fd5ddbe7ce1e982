using Freight.Bench.Scenarios;

namespace Freight.Bench.Reports;

/// <summary>Study 2's comparison and the goals of issue 3, from one run.</summary>
public static class JsonRatios
{
    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results)
    {
        ArgumentNullException.ThrowIfNull(results);
        ScenarioResult? Row(string id, int concurrency) =>
            results.FirstOrDefault(r => r.Scenario == id && r.Verified && (int)r.Parameters["concurrency"] == concurrency);

        // The interval of a speedup is of the runs' responses/s (the inverse of their time per response), paired run by run.
        RatioResult Speedup(string name, string faster, string slower, int concurrency, double? published = null, double? goal = null) =>
            new RatioResult(name, $"{slower} c={concurrency} p50 time", $"{faster} c={concurrency} p50 time",
                Row(slower, concurrency)?.LatencySeconds?.P50 / Row(faster, concurrency)?.LatencySeconds?.P50, published, goal)
                .WithRuns(Row(faster, concurrency)?.RequestsPerSecond?.Samples, Row(slower, concurrency)?.RequestsPerSecond?.Samples);

        yield return Speedup("stj vs newtonsoft-buffered, c=1", JsonSuite.Stj, JsonSuite.NewtonsoftBuffered, 1, published: 6.5 / 4, goal: 3);
        yield return Speedup("stj vs newtonsoft-buffered, c=8", JsonSuite.Stj, JsonSuite.NewtonsoftBuffered, 8);
        yield return Speedup("newtonsoft-unbuffered vs buffered, c=1", JsonSuite.NewtonsoftUnbuffered, JsonSuite.NewtonsoftBuffered, 1, published: 6.5 / 4);
        yield return Speedup("stj-stream vs newtonsoft-buffered, c=1", JsonSuite.StjStream, JsonSuite.NewtonsoftBuffered, 1);

        var stream = Row(JsonSuite.StjStream, 1);
        yield return new RatioResult("stj-stream ttfb / total time, c=1", $"{JsonSuite.StjStream} ttfb p50", $"{JsonSuite.StjStream} time p50",
            stream?.TimeToFirstByteSeconds?.Median / stream?.LatencySeconds?.P50, Goal: 0.01, LowerIsBetter: true);

        var buffered = Row(JsonSuite.NewtonsoftBuffered, 1);
        var stj = Row(JsonSuite.Stj, 1);
        yield return new RatioResult("stj / newtonsoft-buffered allocations per response", $"{JsonSuite.Stj} c=1", $"{JsonSuite.NewtonsoftBuffered} c=1",
            stj?.Server?.AllocatedBytesPerTransfer / buffered?.Server?.AllocatedBytesPerTransfer, Goal: 0.25, LowerIsBetter: true);

        foreach (var id in new[] { JsonSuite.Stj, JsonSuite.StjStream, JsonSuite.NewtonsoftBuffered })
        {
            var row = Row(id, 1);
            yield return new RatioResult($"{id[5..]} disk bytes written per response", $"{id} c=1", "",
                row?.Server?.DiskBytesWrittenPerResponse, Goal: id == JsonSuite.NewtonsoftBuffered ? null : 0, LowerIsBetter: true, Unit: " B");
        }
    }
}
