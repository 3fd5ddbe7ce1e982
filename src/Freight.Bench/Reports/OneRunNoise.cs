using System.Globalization;
using Freight.Bench.Results;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Reports;

/// <summary>
/// When <c>freight compare</c> marks a difference between single runs: <c>freight load</c> results of fewer than
/// <see cref="RunsInterval.MinimumRuns"/> runs a side (without <c>--runs</c>, one), so no interval over runs as the bench's suites have (docs/bench.md, Intervals and verdicts). A change is
/// marked ✓ or ✗ only when it is beyond both noises such a pair has, else ≈ (no clear difference):
/// <list type="bullet">
/// <item>within each run: for the figures its per-second series holds (requests/s, throughput, latency p50 and p99), the
/// 95 % interval of the ratio from the two runs' seconds (<see cref="RatioStatistics.OfSeconds"/>, batch means against
/// their autocorrelation) must exclude 1;</item>
/// <item>from one run to the next, which one run a side cannot show: the change must exceed what two runs of one command
/// differed by here (the floors below; <c>--noise</c> can only raise them). Figures with no floor read ≈ whatever their change.</item>
/// </list>
/// <para>
/// The floors, measured 2026-11-29 on this repository's 2-core machine with other builds running (load average 20–25: a
/// busy laptop's case): <c>freight serve</c> on 127.0.0.1, and eight runs each of <c>freight load URL -c 8 -d 10
/// --server-pid PID --json …</c> on <c>/files/</c> (a JSON listing) and on a 4 KiB file, and with <c>-c 2</c> on a 25 MB
/// file, the three interleaved. A floor is the largest change from one run of a command to another of the same command
/// (56 ordered pairs an endpoint, 168 in all; either run can be the base), rounded up; the pairs' median in brackets:
/// requests/s and MiB/s 586 % (57 %), latency percentiles and mean 2,316 % (a 4 KiB GET's p99; p50 432 %, medians 29–69 %),
/// server CPU per GiB 33 % (4.6 %), client CPU per GiB 99 % (19 %), gen 0–2 collections 560 % (50 %), GC heap 34 % (5 %),
/// working set 8.5 % (4.5 %). Rates and latencies move with every neighbour; the server's CPU per GiB far less, which is
/// why docs/load.md says to compare costs. A quiet machine's runs differ less: these floors err towards ≈ there.
/// </para>
/// </summary>
public static class OneRunNoise
{
    /// <summary>The mark of a change within the noise: no clear difference.</summary>
    public const string Similar = "≈";

    /// <summary>requests/s and MiB/s: the largest A/A change measured, 586 %.</summary>
    public const double RatePercent = 600;

    /// <summary>Latency percentiles and mean: the largest A/A change measured, 2,316 % (a 4 KiB GET's p99).</summary>
    public const double LatencyPercent = 2400;

    /// <summary>The server's CPU seconds per GiB: the largest A/A change measured, 33 %.</summary>
    public const double ServerCostPercent = 35;

    /// <summary>The client's CPU seconds per GiB (this process, which shares the machine): the largest A/A change measured, 99 %.</summary>
    public const double ClientCostPercent = 100;

    /// <summary>
    /// GC collections in the run: the largest A/A change measured, 560 %; they count with the requests served. A count
    /// also needs a difference beyond 2√(a+b), two counts' spread at one rate (Poisson): 0 against 1 is never a change.
    /// </summary>
    public const double CollectionsPercent = 600;

    /// <summary>The GC heap's largest size: the largest A/A change measured, 34 %.</summary>
    public const double HeapPercent = 35;

    /// <summary>
    /// The server's largest working set: the largest A/A change measured was 8.5 % over the 168 pairs above, then 16 %
    /// between two A/A files of a user's app (a 25 MB JSON GET, 5 runs a side, 2026-11-29), whose GC heap moved 22 %:
    /// the working set follows the heap, and takes its floor.
    /// </summary>
    public const double MemoryPercent = HeapPercent;

    /// <summary>
    /// True for a <c>freight load</c> result of fewer runs than an interval over runs needs (<see cref="RunsInterval.MinimumRuns"/>):
    /// its changes are judged here.
    /// </summary>
    public static bool IsOneRun(ScenarioResult row)
    {
        ArgumentNullException.ThrowIfNull(row);
        return row.Suite == "load" && row.Runs < RunsInterval.MinimumRuns;
    }

    /// <summary>
    /// True when <paramref name="metric"/>'s change from <paramref name="baseRow"/> to <paramref name="row"/> (<paramref name="relative"/>
    /// in %, infinite from a base of 0) is beyond both noises (the type's summary) and <paramref name="noisePercent"/>.
    /// </summary>
    internal static bool IsClear(ScenarioResult baseRow, ScenarioResult row, CompareMetric metric, double baseValue, double value, double relative, double noisePercent)
    {
        if (metric.OneRunFloorPercent is not { } floor || Math.Abs(relative) < noisePercent || Factor(baseValue, value, relative) < floor)
        {
            return false;
        }

        if (metric.Integer && floor > 0 && Math.Abs(value - baseValue) <= 2 * Math.Sqrt(value + baseValue))
        {
            return false;
        }

        return metric.Seconds is not { } seconds || Interval(seconds(row), seconds(baseRow)) is not { } interval || !interval.Contains(1.0);
    }

    /// <summary>
    /// The change as the floors were measured, either run the base: how many percent the larger value is above the smaller.
    /// A fall from 800 to 100 is 700 %, as the rise from 100 to 800 (its relative change, -87.5 %, could never pass a floor
    /// of 100 % or more). A base or value of 0 leaves the relative change, infinite or 0.
    /// </summary>
    private static double Factor(double baseValue, double value, double relative) =>
        baseValue > 0 && value > 0 ? (Math.Max(value / baseValue, baseValue / value) - 1) * 100 : Math.Abs(relative);

    /// <summary>The line under tables of single runs: what ≈ means, and what a mark needs.</summary>
    internal static string Legend(double noisePercent)
    {
        string Floor(double percent) => Math.Max(percent, noisePercent).ToString("0.##", CultureInfo.InvariantCulture) + "%";
        return $"{CompareReport.Better} better, {CompareReport.Worse} worse, {Similar} no clear difference; never marked: {CompareReport.Neutral}. Fewer than {RunsInterval.MinimumRuns} runs a side: a mark needs a 95% interval from the runs' seconds that excludes no change " +
            $"(requests/s, MiB/s, latency p50, p99) and a change beyond what two runs of one command differed by (requests/s, MiB/s {Floor(RatePercent)}; " +
            $"latency {Floor(LatencyPercent)}; CPU/GiB server {Floor(ServerCostPercent)}, client {Floor(ClientCostPercent)}; GC counts {Floor(CollectionsPercent)}; " +
            $"GC heap {Floor(HeapPercent)}; working set {Floor(MemoryPercent)}; others unmarked; docs/load.md). " +
            $"Measure each side with freight load --runs {RunsInterval.MinimumRuns} for marks from the spread over runs, which a doubling passes.";
    }

    /// <summary>The interval of A/B over the two runs' seconds, those with a value.</summary>
    private static RatioInterval? Interval(IEnumerable<double?>? a, IEnumerable<double?>? b) =>
        a is null || b is null ? null : RatioStatistics.OfSeconds([.. a.OfType<double>()], [.. b.OfType<double>()]);
}
