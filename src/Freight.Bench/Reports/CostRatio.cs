using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>
/// Cost goals: what one row's server spent per GiB (or per response) over another's, lower is better. CPU s/GiB moves far
/// less with a busy neighbour than MiB/s does (a neighbour takes time, not work), and bytes allocated per response follow
/// the work a response does, not how long it took, so a cost verdict settles where a speed verdict is still inconclusive.
/// The interval is the speed goals' (paired t on the log ratios of run i to run i).
/// </summary>
public static class CostRatio
{
    /// <summary>The ratio's unit: a cost ratio is a plain ratio, like the speed goals'.</summary>
    public const string Unit = "×";

    /// <summary>
    /// Server CPU seconds per GiB of <paramref name="numerator"/> over <paramref name="denominator"/> (the totals over all
    /// runs for <see cref="RatioResult.Value"/>, the per-run figures for the interval), with a "≤" goal.
    /// </summary>
    public static RatioResult ServerCpu(string name, string numerator, string denominator, ScenarioResult? top, ScenarioResult? bottom, double goal) =>
        new RatioResult(name, $"{numerator} server CPU s/GiB", $"{denominator} server CPU s/GiB", top?.Server?.CpuSecondsPerGiB / bottom?.Server?.CpuSecondsPerGiB, Goal: goal, LowerIsBetter: true, Unit: Unit)
            .WithRuns(top, bottom, r => r.Server?.CpuSecondsPerGiBSamples is { } perRun ? Summary.OfRuns(perRun) : null);

    /// <summary>
    /// Bytes the server allocated per response of the row <paramref name="top"/> over the row <paramref name="bottom"/>, with
    /// a "≤" goal: the totals over all runs (allocated bytes over responses) for <see cref="RatioResult.Value"/>, each run's
    /// own figure (<see cref="SideCost.AllocatedBytesPerTransferRuns"/>) for the interval. Per response, not per second: an
    /// allocation rate follows requests/s, so a faster server would "allocate more" at the same cost per request. The rows
    /// are kept as <see cref="RatioResult.Sides"/>, so a suite that adds runs counts the goal like its speed goals.
    /// </summary>
    public static RatioResult ServerAllocations(string name, ScenarioResult? top, ScenarioResult? bottom, string numerator, string denominator, double goal) =>
        new RatioResult(name, $"{numerator} server bytes allocated/response", $"{denominator} server bytes allocated/response",
                top?.Server?.AllocatedBytesPerTransfer / bottom?.Server?.AllocatedBytesPerTransfer, Goal: goal, LowerIsBetter: true, Unit: Unit)
            .WithRuns(top, bottom, r => r.Server?.AllocatedBytesPerTransferRuns is { } perRun ? Summary.OfRuns(perRun) : null);
}
