using System.Globalization;
using Freight.Bench.Results;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Reports;

/// <summary>
/// When <c>freight compare</c> marks a change between <c>freight load</c> results of several runs a side (<c>--runs N</c>):
/// from the 95 % interval of the ratio B/A over the runs, as the bench's goals are judged (docs/bench.md, Intervals and
/// verdicts). The two files' runs were not interleaved, so there are no pairs: the interval is the unpaired one, a
/// percentile bootstrap of the ratio of medians over each side apart (<see cref="RatioStatistics.Unpaired"/>). A change is
/// marked ✓ or ✗ when that interval excludes 1 and the change is at least <c>--noise</c>; else ≈. It holds how much one
/// run of a command differs from the next, which <see cref="OneRunNoise"/>'s floors stood in for: they do not apply then.
/// </summary>
public static class RunsInterval
{
    /// <summary>
    /// Runs a side an interval is drawn from. Fewer hold too little: simulated A/A (2,000 draws of log-normal runs, σ 0.2,
    /// through <see cref="RatioStatistics.Unpaired"/>) the 95 % interval held 1 in 89 % of draws at 3 runs a side (one
    /// A/A pair in nine marked as a change), 97 % at 5, 96 % at 10.
    /// </summary>
    public const int MinimumRuns = 5;

    /// <summary>
    /// The 95 % interval of <paramref name="metric"/>'s ratio <paramref name="row"/> / <paramref name="baseRow"/> over their
    /// runs; null when either side has fewer than <see cref="MinimumRuns"/> values, or one that is not a positive number.
    /// </summary>
    public static RatioInterval? Of(ScenarioResult baseRow, ScenarioResult row, CompareMetric metric)
    {
        ArgumentNullException.ThrowIfNull(baseRow);
        ArgumentNullException.ThrowIfNull(row);
        ArgumentNullException.ThrowIfNull(metric);
        return metric.Runs is { } runs && runs(row) is { } a && runs(baseRow) is { } b && Usable(a) && Usable(b)
            ? RatioStatistics.Unpaired(a, b)
            : null;
    }

    /// <summary>" [0.912–1.08×]": the interval as a cell shows it after its mark.</summary>
    internal static string Text(RatioInterval interval) =>
        $" [{ConsoleReport.RatioFigure(interval.Low, "×")}–{ConsoleReport.RatioFigure(interval.High, "×")}×]";

    /// <summary>"a.json 5 runs × 10 s", or for one run "a.json 1 run, 10 s" (its seconds): what a column measured, under a table's title.</summary>
    internal static string Measured(string name, ScenarioResult row)
    {
        if (row.Runs <= 1)
        {
            return string.Create(CultureInfo.InvariantCulture, $"{name} 1 run, {row.Series?.Count ?? 0} s");
        }

        var seconds = row.Parameters.DurationSeconds ?? (double)(row.Series?.Count ?? 0) / row.Runs;
        return string.Create(CultureInfo.InvariantCulture, $"{name} {row.Runs} runs × {seconds:0.#} s");
    }

    /// <summary>The line under tables whose marks came from intervals over runs.</summary>
    internal static string Legend(double noisePercent) =>
        string.Create(CultureInfo.InvariantCulture,
            $"{CompareReport.Better} better, {CompareReport.Worse} worse, {OneRunNoise.Similar} no clear difference; never marked: {CompareReport.Neutral}. {MinimumRuns} or more runs a side: requests/s, MiB/s, latency p50, p99 and CPU/GiB are marked when the 95% interval of the ratio to the first column over the runs (in brackets: a bootstrap of the runs' medians, unpaired) excludes 1 and the change is {noisePercent:0.##}% or more; the other figures as single runs' (docs/load.md).");

    private static bool Usable(IReadOnlyList<double> values) => values.Count >= MinimumRuns && values.All(v => v > 0 && double.IsFinite(v));
}
