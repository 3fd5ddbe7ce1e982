using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Tus;

/// <summary>Issue 7's goals for tus uploads, from one run, at the largest payload and 16 MiB chunks.</summary>
public static class TusRatios
{
    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results, long size)
    {
        ArgumentNullException.ThrowIfNull(results);
        ScenarioResult? Row(string id, int? chunk) => results.FirstOrDefault(r => r.Scenario == id && r.Verified
            && r.Parameters.PayloadBytes == size
            && r.Parameters.ChunkBytes == chunk);

        var label = $"{SizeText.Format(TusSuite.GoalChunkBytes)} chunks, {SizeText.Format(size)}";
        var tus = Row(TusSuite.Upload, TusSuite.GoalChunkBytes);
        var peer = Row(TusSuite.NodePeer, TusSuite.GoalChunkBytes);
        var put = Row(TusSuite.Put, null);
        yield return new RatioResult($"upload/tus / peer/tus-node, {label}", TusSuite.Upload, TusSuite.NodePeer, tus?.BytesPerSecond?.Median / peer?.BytesPerSecond?.Median, Goal: 1.5)
            .WithRuns(tus, peer, r => r.BytesPerSecond);
        yield return new RatioResult($"upload/tus / files/put, {label}", TusSuite.Upload, TusSuite.Put, tus?.BytesPerSecond?.Median / put?.BytesPerSecond?.Median, Goal: 0.85)
            .WithRuns(tus, put, r => r.BytesPerSecond);
        if (Verdicts.AaControl.Ratio(results, r => r.BytesPerSecond) is { } control)
        {
            yield return control;
        }
    }
}
