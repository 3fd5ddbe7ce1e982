using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>
/// Cost goals: what one row's server spent per GiB over another's, lower is better. CPU s/GiB moves far less with
/// a busy neighbour than MiB/s does (a neighbour takes time, not work), so a cost verdict settles where a speed
/// verdict is still inconclusive. The interval is the speed goals' (paired t on the log ratios of run i to run i).
/// </summary>
public static class CostRatio
{
    /// <summary>The ratio's unit: a cost ratio is a plain ratio, like the speed goals'.</summary>
    public const string Unit = "×";

    /// <summary>
    /// Server CPU seconds per GiB of <paramref name="numerator"/> over <paramref name="denominator"/> (the totals over all
    /// runs for <see cref="RatioResult.Value"/>, the per-run figures for the interval), with a "≤" goal.
    /// </summary>
    public static RatioResult ServerCpu(string name, string numerator, string denominator, SideCost? top, SideCost? bottom, double goal) =>
        new RatioResult(name, $"{numerator} server CPU s/GiB", $"{denominator} server CPU s/GiB", top?.CpuSecondsPerGiB / bottom?.CpuSecondsPerGiB, Goal: goal, LowerIsBetter: true, Unit: Unit)
            .WithRuns(top?.CpuSecondsPerGiBSamples, bottom?.CpuSecondsPerGiBSamples);
}
