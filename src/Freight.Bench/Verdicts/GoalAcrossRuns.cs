using Freight.Bench.Results;

namespace Freight.Bench.Verdicts;

/// <summary>
/// One goal over several runs (result files): each run's own ratio, and the goal judged on the interval across them
/// (<see cref="RatioStatistics.AcrossRuns"/>), which holds what one run's interval cannot: how much the next run differs.
/// </summary>
public sealed record GoalAcrossRuns
{
    /// <param name="latest">The goal as the last run that measured it states it (name, goal, direction, unit).</param>
    /// <param name="runs">The goal's ratio in each run that measured it, in the runs' order.</param>
    public GoalAcrossRuns(RatioResult latest, IReadOnlyList<RatioResult> runs)
    {
        ArgumentNullException.ThrowIfNull(latest);
        ArgumentNullException.ThrowIfNull(runs);
        Latest = latest;
        Runs = runs;
        Estimates = [.. runs.Select(EstimateOf).OfType<double>()];
        Pooled = RatioStatistics.AcrossRuns(Estimates) is { } interval
            ? latest.WithInterval(interval) with { Value = interval.Estimate, Stop = null }
            : latest;
    }

    /// <summary>The goal as the last run that measured it states it (name, goal, direction, unit).</summary>
    public RatioResult Latest { get; }

    /// <summary>The goal's ratio in each run that measured it, in the runs' order.</summary>
    public IReadOnlyList<RatioResult> Runs { get; }

    /// <summary>Each run's estimate: its interval's centre, or its figure where it has no interval.</summary>
    public IReadOnlyList<double> Estimates { get; }

    /// <summary>The goal on the interval across the runs: a ratio with that interval, whose verdict is the pooled one.</summary>
    public RatioResult Pooled { get; }

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
