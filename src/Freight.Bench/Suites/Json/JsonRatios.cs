using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Suites.Json;

/// <summary>Study 2's comparison and the goals of issue 3, from one run.</summary>
public static class JsonRatios
{
    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results)
    {
        ArgumentNullException.ThrowIfNull(results);
        ScenarioResult? Row(string id, int concurrency) =>
            results.FirstOrDefault(r => r.Scenario == id && r.Verified && r.Parameters.Concurrency == concurrency);

        // A speedup is the slower row's p50 time over the faster's: its interval pairs the runs' own p50s.
        RatioResult Speedup(string name, string faster, string slower, int concurrency, double? published = null, double? goal = null)
        {
            var slowRow = Row(slower, concurrency);
            var fastRow = Row(faster, concurrency);
            return new RatioResult(name, $"{slower} c={concurrency} p50 time", $"{faster} c={concurrency} p50 time",
                    slowRow?.LatencySeconds?.P50 / fastRow?.LatencySeconds?.P50, published, goal)
                .WithRuns(slowRow, fastRow, r => r.LatencySeconds?.P50Runs is { } p50s ? Summary.OfRuns(p50s) : null);
        }

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
                stj?.Server?.AllocatedBytesPerTransfer / buffered?.Server?.AllocatedBytesPerTransfer, Goal: 0.25, LowerIsBetter: true)
            .WithRuns(stj, buffered, r => r.Server?.AllocatedBytesPerTransferRuns is { } perRun ? Summary.OfRuns(perRun) : null);

        foreach (var id in new[] { JsonSuite.Stj, JsonSuite.StjStream, JsonSuite.NewtonsoftBuffered })
        {
            var row = Row(id, 1);
            yield return new RatioResult($"{id[5..]} disk bytes written per response", $"{id} c=1", "",
                row?.Server?.DiskBytesWrittenPerResponse, Goal: id == JsonSuite.NewtonsoftBuffered ? null : 0, LowerIsBetter: true, Unit: " B");
        }

        if (AaControl.Ratio(results, r => r.LatencySeconds?.P50Runs is { } p50s ? Summary.OfRuns(p50s) : null) is { } control)
        {
            yield return control;
        }
    }
}
