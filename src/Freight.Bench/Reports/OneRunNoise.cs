using System.Globalization;
using Freight.Bench.Load.Blame;
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
/// The floors, measured 2026-11-29 on this repository's 2-core machine: busy, with other builds running (load average
/// 20–25: a busy laptop's case), and quiet, with nothing else running (others used under 10 % of the cores), twice, each
/// time a new server. Each session <c>freight serve</c> on 127.0.0.1, and eight runs each of <c>freight load URL -c 8 -d 10
/// --server-pid PID --json …</c> on <c>/files/</c> (a JSON listing) and on a 4 KiB file, and with <c>-c 2</c> on a 25 MB
/// file, the three interleaved. A floor is the largest change from one run of a command to another of the same command
/// (either run the base; quiet: the pairs within and across the two sessions, 720 in all; docs/results/2026-11-29-quiet-floors.md), rounded up; docs/load.md has
/// the table with the pairs' medians. Rates and latencies move with every neighbour (busy 586 % and 2,316 %, quiet 76 % and
/// 226 %); the server's CPU per GiB far less, which is why docs/load.md says to compare costs. The quiet floors apply when
/// every load result of a table was measured quiet (<see cref="IsQuiet"/>).
/// </para>
/// </summary>
public static class OneRunNoise
{
    /// <summary>The mark of a change within the noise: no clear difference.</summary>
    public const string Similar = "≈";

    /// <summary>requests/s and MiB/s: the largest A/A change measured, busy 586 %, quiet 76 %.</summary>
    public static readonly OneRunFloor Rate = new(BusyPercent: 600, QuietPercent: 80);

    /// <summary>Latency percentiles and mean: the largest A/A change measured, busy 2,316 % (a 4 KiB GET's p99), quiet 226 % (a listing's p99).</summary>
    public static readonly OneRunFloor Latency = new(BusyPercent: 2400, QuietPercent: 250);

    /// <summary>
    /// The server's CPU seconds per GiB: the largest A/A change measured, busy 33 % within one server's runs, quiet 31 % and
    /// 37 % within each of two servers' runs, 55 % between the two (a 25 MB GET: 0.22 s/GiB one session, 0.34 the next).
    /// A before/after always spans two servers, so the floor is that, busy or quiet.
    /// </summary>
    public static readonly OneRunFloor ServerCost = new(BusyPercent: 60, QuietPercent: 60);

    /// <summary>
    /// The proxy's CPU seconds per GiB (<c>--through-proxy</c>): the server's floor. No A/A pairs were measured through a
    /// proxy; the server's is the nearest figure measured: another process on this machine, sampled from /proc as it is,
    /// its cost moved by the same loopback traffic, and a before/after spans two of its starts as it spans two servers.
    /// Measure A/A pairs through nginx to give it one of its own.
    /// </summary>
    public static readonly OneRunFloor ProxyCost = ServerCost;

    /// <summary>The client's CPU seconds per GiB (this process, which shares the machine): the largest A/A change measured, busy 99 %, quiet 54 %.</summary>
    public static readonly OneRunFloor ClientCost = new(BusyPercent: 100, QuietPercent: 60);

    /// <summary>
    /// GC collections in the run: the largest A/A change measured, busy 560 %, quiet 96 %; they count with the requests
    /// served. A count also needs a difference beyond 2√(a+b), two counts' spread at one rate (Poisson): 0 against 1 is never a change.
    /// </summary>
    public static readonly OneRunFloor Collections = new(BusyPercent: 600, QuietPercent: 100);

    /// <summary>The GC heap's largest size: the largest A/A change measured, busy 34 %, quiet 28 %, and 22 % in a user app's quiet A/A pair (<see cref="Memory"/>): the busy floor holds both.</summary>
    public static readonly OneRunFloor Heap = new(BusyPercent: 35, QuietPercent: 35);

    /// <summary>
    /// The server's largest working set: the largest A/A change measured was 8.5 % over the busy machine's 168 pairs and
    /// 14 % over the quiet one's, then 16 % between two A/A files of a user's app on a quiet machine (a 25 MB JSON GET,
    /// 5 runs a side, others 2 %, 2026-11-29), whose GC heap moved 22 %: the working set follows the heap, and takes its floors.
    /// </summary>
    public static readonly OneRunFloor Memory = Heap;

    /// <summary>Failures (bad responses, socket errors) are no noise: any change is marked.</summary>
    public static readonly OneRunFloor AnyChange = new(BusyPercent: 0, QuietPercent: 0);

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
    /// True when <paramref name="row"/>'s server was measured (<c>--server-pid</c>) and the other processes used at most
    /// <see cref="SaturationRule.OthersWeak"/> of the machine's cores during its run (<c>blame.othersCpuCores</c>): the
    /// machine the quiet floors were measured on. Without a measured server, a local one's CPU is among the others, and
    /// a remote one's machine is not seen: busy.
    /// </summary>
    public static bool IsQuiet(ScenarioResult row)
    {
        ArgumentNullException.ThrowIfNull(row);
        return row.Blame is { ServerCpuCores: not null, OthersCpuCores: { } others, MachineCpus: { } cpus } && cpus > 0 && others / cpus <= SaturationRule.OthersWeak;
    }

    /// <summary>
    /// True when <paramref name="metric"/>'s change from <paramref name="baseRow"/> to <paramref name="row"/> (<paramref name="relative"/>
    /// in %, infinite from a base of 0) is beyond both noises (the type's summary) and <paramref name="noisePercent"/>; the
    /// quiet floors when <paramref name="quiet"/> (every single run of the table was quiet, <see cref="IsQuiet"/>).
    /// </summary>
    internal static bool IsClear(ScenarioResult baseRow, ScenarioResult row, CompareMetric metric, double baseValue, double value, double relative, double noisePercent, bool quiet)
    {
        if (metric.OneRunFloor is not { } floors || Math.Abs(relative) < noisePercent)
        {
            return false;
        }

        var floor = quiet ? floors.QuietPercent : floors.BusyPercent;
        if (Factor(baseValue, value, relative) < floor)
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

    /// <summary>The line under tables of single runs: what ≈ means, and what a mark needs, with the floors of a quiet or a busy machine.</summary>
    internal static string Legend(double noisePercent, bool quiet)
    {
        string Floor(OneRunFloor floor) => Math.Max(quiet ? floor.QuietPercent : floor.BusyPercent, noisePercent).ToString("0.##", CultureInfo.InvariantCulture) + "%";
        var machine = quiet
            ? $"two runs of one command differed by on a quiet machine, as every run here was (others used at most {SaturationRule.OthersWeak * 100:0}% of its cores)"
            : $"two runs of one command differed by on a busy machine (a run here had others using more than {SaturationRule.OthersWeak * 100:0}% of the cores, or did not measure them)";
        return $"{CompareReport.Better} better, {CompareReport.Worse} worse, {Similar} no clear difference; never marked: {CompareReport.Neutral}. Fewer than {RunsInterval.MinimumRuns} runs a side: a mark needs a 95% interval from the runs' seconds that excludes no change " +
            $"(requests/s, MiB/s, latency p50, p99) and a change beyond what {machine} (requests/s, MiB/s {Floor(Rate)}; " +
            $"latency {Floor(Latency)}; CPU/GiB server {Floor(ServerCost)}, proxy {Floor(ProxyCost)}, client {Floor(ClientCost)}; GC counts {Floor(Collections)}; " +
            $"GC heap {Floor(Heap)}; working set {Floor(Memory)}; others unmarked; docs/load.md). " +
            $"Measure each side with freight load --runs {RunsInterval.MinimumRuns} for marks from the spread over runs, which a doubling passes.";
    }

    /// <summary>The interval of A/B over the two runs' seconds, those with a value.</summary>
    private static RatioInterval? Interval(IEnumerable<double?>? a, IEnumerable<double?>? b) =>
        a is null || b is null ? null : RatioStatistics.OfSeconds([.. a.OfType<double>()], [.. b.OfType<double>()]);
}

/// <summary>A figure's single-run floor, in %: what two runs of one command differed by on a busy machine, and on a quiet one (<see cref="OneRunNoise.IsQuiet"/>).</summary>
public readonly record struct OneRunFloor(double BusyPercent, double QuietPercent);
