using Freight.Bench.Results;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// The figure a study's bar chart compares: its name, its unit (a published figure is drawn beside ours only in the
/// same unit), the median and, where the runs give one, the min–max.
/// </summary>
internal sealed record BarMetric(string Name, string Unit, Func<ScenarioResult, double?> Median, Func<ScenarioResult, double?>? Min = null, Func<ScenarioResult, double?>? Max = null)
{
    private const double MiB = 1024 * 1024;

    public static BarMetric Throughput { get; } = new("throughput", "MiB/s", r => r.BytesPerSecond?.Median / MiB, r => r.BytesPerSecond?.Min / MiB, r => r.BytesPerSecond?.Max / MiB);

    public static BarMetric RequestsPerSecond { get; } = new("requests/s", "req/s", r => r.RequestsPerSecond?.Median, r => r.RequestsPerSecond?.Min, r => r.RequestsPerSecond?.Max);

    /// <summary>Study 2 timed one response: our p50 over every response stands beside it.</summary>
    public static BarMetric TimePerResponse { get; } = new("time per response p50", "s", r => r.LatencySeconds?.P50);

    /// <summary>Study 3 reported how far the sleeping action backed up: the longest response.</summary>
    public static BarMetric LatencyMax { get; } = new("latency max", "s", r => r.LatencySeconds?.Max);

    public bool HasRange => Min is not null && Max is not null;

    /// <summary>
    /// Of <paramref name="candidates"/>, the one in whose unit most rows have a published figure (the study's figure
    /// belongs beside ours), then the one most rows have a value for; the first on a tie.
    /// </summary>
    public static BarMetric? Choose(IReadOnlyList<ScenarioResult> rows, IReadOnlyList<BarMetric> candidates)
    {
        BarMetric? best = null;
        (int Published, int Values) bestScore = (0, 0);
        foreach (var metric in candidates)
        {
            var values = rows.Where(r => metric.Median(r) is { } v && double.IsFinite(v)).ToArray();
            var score = (values.Count(r => string.Equals(r.Published?.Unit, metric.Unit, StringComparison.Ordinal)), values.Length);
            if (score.Item1 > bestScore.Published || (score.Item1 == bestScore.Published && score.Item2 > bestScore.Values))
            {
                best = metric;
                bestScore = score;
            }
        }

        return best;
    }
}
