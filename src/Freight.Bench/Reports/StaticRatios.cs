using Freight.Bench.Scenarios;

namespace Freight.Bench.Reports;

/// <summary>Issue 5's goals for study 4, from one run: Freight's file path against the stock ones and nginx.</summary>
public static class StaticRatios
{
    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results)
    {
        ArgumentNullException.ThrowIfNull(results);
        ScenarioResult? Row(string id, long size, string generator = StaticScenario.Engine) => results.FirstOrDefault(r =>
            r.Scenario == id && r.Verified
            && Convert.ToInt64(r.Parameters["fileBytes"], System.Globalization.CultureInfo.InvariantCulture) == size
            && Convert.ToInt32(r.Parameters["connections"], System.Globalization.CultureInfo.InvariantCulture) == StaticSuite.GoalConnections
            && (string)r.Parameters["generator"] == generator);

        const int c = StaticSuite.GoalConnections;
        foreach (var size in StaticSuite.FileSizes)
        {
            var label = $"{SizeText.Format(size)}, {c} conns";
            var freight = Row(StaticSuite.Freight, size);
            var stock = Row(StaticSuite.StaticFiles, size);
            yield return new RatioResult($"freight / staticfiles req/s, {label}", StaticSuite.Freight, StaticSuite.StaticFiles,
                freight?.RequestsPerSecond?.Median / stock?.RequestsPerSecond?.Median, Goal: size <= 16 * 1024 ? 1.15 : 1.0);
            yield return new RatioResult($"freight / staticfiles allocation rate, {label}", StaticSuite.Freight, StaticSuite.StaticFiles,
                freight?.Counters?.AllocationBytesPerSecond / stock?.Counters?.AllocationBytesPerSecond, Goal: 1.0, LowerIsBetter: true);
            yield return new RatioResult($"freight / results-file req/s, {label}", StaticSuite.Freight, StaticSuite.ResultsFile,
                freight?.RequestsPerSecond?.Median / Row(StaticSuite.ResultsFile, size)?.RequestsPerSecond?.Median);
            yield return new RatioResult($"freight / nginx req/s, {label}", StaticSuite.Freight, StaticSuite.Nginx,
                freight?.RequestsPerSecond?.Median / Row(StaticSuite.Nginx, size)?.RequestsPerSecond?.Median, Goal: size == 4 * 1024 ? 0.7 : null);
            yield return new RatioResult($"engine / wrk req/s on static/freight, {label}", "engine", "wrk",
                freight?.RequestsPerSecond?.Median / Row(StaticSuite.Freight, size, StaticScenario.Wrk)?.RequestsPerSecond?.Median);
        }
    }
}
