using Freight.Bench.Results;

namespace Freight.Bench.Verdicts;

/// <summary>
/// One goal over several runs (result files): each run's own ratio, and the goal judged on the interval across them
/// (<see cref="RatioStatistics.AcrossRuns"/>), which holds what one run's interval cannot: how much the next run differs.
/// </summary>
/// <param name="Latest">The goal as the last run that measured it states it (name, goal, direction, unit).</param>
/// <param name="Runs">The goal's ratio in each run that measured it, in the runs' order.</param>
public sealed record GoalAcrossRuns(RatioResult Latest, IReadOnlyList<RatioResult> Runs)
{
    /// <summary>Each run's estimate: its interval's centre, or its figure where it has no interval.</summary>
    public IReadOnlyList<double> Estimates { get; } = [.. Runs.Select(EstimateOf).OfType<double>()];

    /// <summary>The goal on the interval across the runs: a ratio with that interval, whose verdict is the pooled one.</summary>
    public RatioResult Pooled { get; } = RatioStatistics.AcrossRuns([.. Runs.Select(EstimateOf).OfType<double>()]) is { } interval
        ? Latest.WithInterval(interval) with { Value = interval.Estimate, Stop = null }
        : Latest;

    /// <summary>
    /// Every goal two or more runs measured, in the order the runs first state them. A run whose goal has no figure
    /// (its rows not run) does not count.
    /// </summary>
    public static IReadOnlyList<GoalAcrossRuns> Of(IEnumerable<IReadOnlyList<RatioResult>> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        var byName = new Dictionary<string, List<RatioResult>>(StringComparer.Ordinal);
        var order = new List<string>();
        foreach (var ratios in runs)
        {
            foreach (var ratio in ratios.Where(r => r.Goal is not null && EstimateOf(r) is not null))
            {
                if (!byName.TryGetValue(ratio.Name, out var measured))
                {
                    byName[ratio.Name] = measured = [];
                    order.Add(ratio.Name);
                }

                measured.Add(ratio);
            }
        }

        return [.. order.Where(name => byName[name].Count >= 2).Select(name => new GoalAcrossRuns(byName[name][^1], byName[name]))];
    }

    private static double? EstimateOf(RatioResult ratio) =>
        (ratio.Interval?.Estimate ?? ratio.Value) is { } value && value > 0 && double.IsFinite(value) ? value : null;
}
