using System.Text.Json.Serialization;
using Freight.Bench.Reports;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Results;

/// <summary>
/// A ratio the study drew or a goal Freight set, measured in this run. <see cref="Value"/> is the ratio of the
/// two rows' figures (medians over the runs), and <see cref="GoalMet"/> compares it alone with the goal, as
/// before intervals existed. Where both rows kept one figure per run, <see cref="WithRuns"/> adds the 95 %
/// interval (<see cref="Estimate"/>, <see cref="Low"/>, <see cref="High"/>) and the goal's <see cref="Verdict"/>.
/// </summary>
public sealed record RatioResult(string Name, string Numerator, string Denominator, double? Value, double? Published = null, double? Goal = null, bool LowerIsBetter = false, string Unit = "×")
{
    public bool? GoalMet => Goal is null || Value is null ? null : LowerIsBetter ? Value <= Goal : Value >= Goal;

    /// <summary>The interval's point estimate: the geometric mean of the per-pair ratios when paired, else the ratio of medians.</summary>
    public double? Estimate { get; init; }

    /// <summary>The 95 % interval's lower bound.</summary>
    public double? Low { get; init; }

    /// <summary>The 95 % interval's upper bound.</summary>
    public double? High { get; init; }

    /// <summary>The interval's confidence level where there is one: 0.95, or 0.995 for a goal adaptive runs were added to.</summary>
    public double? Level { get; init; }

    /// <summary>Runs behind the interval: pairs when paired, else the smaller side's count.</summary>
    public int? Runs { get; init; }

    /// <summary><c>paired-log-t</c> or <c>bootstrap-median-ratio</c> (docs/bench.md, Intervals and verdicts).</summary>
    public string? Method { get; init; }

    /// <summary>The goal's direction: <c>&gt;=</c> (a speed) or <c>&lt;=</c> (a cost); null without a goal.</summary>
    public string? Comparison => Goal is null ? null : LowerIsBetter ? "<=" : ">=";

    /// <summary><c>met</c>, <c>missed</c> or <c>inconclusive</c> from the interval; null without a goal or without an interval.</summary>
    public string? Verdict => Interval is { } interval && Goal is { } goal
        ? RatioStatistics.Verdict(interval, goal, LowerIsBetter).ToString().ToLowerInvariant()
        : null;

    /// <summary>
    /// Goals with an interval: why their runs ended — <c>conclusive</c>, <c>time-cap</c> (--max-seconds spent, still
    /// inconclusive), <c>run-ceiling</c> (30 runs, still inconclusive) or <c>minimum-runs</c> (inconclusive, no runs added).
    /// </summary>
    public string? Stop { get; init; }

    /// <summary>
    /// What the verdict cannot say, when the run shows it: <c>client-bound: …</c> when a goal above 1× is a rate over a
    /// row whose client held its core (docs/bench.md, Client-bound goals). The verdict stands as the interval gives it.
    /// </summary>
    public string? Caveat { get; init; }

    /// <summary>The verdict column's note: <see cref="StopText"/> and <see cref="Caveat"/>, either or both; null with neither.</summary>
    [JsonIgnore]
    public string? VerdictNote => StopText is { } stop ? Caveat is { } caveat ? $"{stop}; {caveat}" : stop : Caveat;

    /// <summary>The console's and report's reading of <see cref="Stop"/>: "conclusive after 7 runs", "cap reached, inconclusive after 12 runs".</summary>
    [JsonIgnore]
    public string? StopText => Stop switch
    {
        StopConclusive => $"conclusive after {RunCountText}",
        StopTimeCap => $"cap reached, inconclusive after {RunCountText}",
        StopCeiling => $"run ceiling reached, inconclusive after {RunCountText}",
        StopMinimumRuns => $"inconclusive after {RunCountText}, none added",
        _ => null,
    };

    private string RunCountText => CountText.Format(Runs.GetValueOrDefault(), "run");

    public const string StopConclusive = "conclusive";
    public const string StopTimeCap = "time-cap";
    public const string StopCeiling = "run-ceiling";
    public const string StopMinimumRuns = "minimum-runs";

    /// <summary>The two rows the ratio was drawn from, when it has per-run figures (adaptive runs add runs to them).</summary>
    [JsonIgnore]
    public (ScenarioResult Numerator, ScenarioResult Denominator)? Sides { get; init; }

    /// <summary>The interval, when there is one.</summary>
    [JsonIgnore]
    public RatioInterval? Interval => Estimate is { } e && Low is { } low && High is { } high && Runs is { } runs && Method is { } method
        ? new RatioInterval(e, low, high, runs, method) { Level = Level ?? RatioStatistics.Level }
        : null;

    /// <summary>The per-run values the interval was drawn from (numerator, denominator), to draw it again at another level.</summary>
    [JsonIgnore]
    public (IReadOnlyList<double> Numerator, IReadOnlyList<double> Denominator)? RunValues { get; init; }

    /// <summary>
    /// This ratio with the 95 % interval drawn from the per-run values of its numerator and denominator
    /// (<see cref="Summary.Samples"/>); unchanged when either is missing or has fewer than two runs.
    /// </summary>
    public RatioResult WithRuns(IReadOnlyList<double>? numerator, IReadOnlyList<double>? denominator, double level = RatioStatistics.Level) =>
        RatioStatistics.Of(numerator, denominator, level) is { } interval
            ? WithInterval(interval) with { RunValues = (numerator!, denominator!) }
            : this;

    /// <summary>This ratio with <paramref name="interval"/> as its interval (and no per-run values to draw it again from).</summary>
    public RatioResult WithInterval(RatioInterval interval)
    {
        ArgumentNullException.ThrowIfNull(interval);
        return this with
        {
            Estimate = interval.Estimate,
            Low = interval.Low,
            High = interval.High,
            Level = interval.Level,
            Runs = interval.Runs,
            Method = interval.Method,
            RunValues = null,
        };
    }

    /// <summary>This ratio with its interval drawn again at <paramref name="level"/>; unchanged without per-run values.</summary>
    public RatioResult AtLevel(double level) =>
        RunValues is { } values && Level != level ? WithRuns(values.Numerator, values.Denominator, level) : this;

    /// <summary>
    /// <see cref="WithRuns(IReadOnlyList{double}?, IReadOnlyList{double}?)"/> from two rows' per-run <paramref name="figure"/>,
    /// remembering the rows as <see cref="Sides"/>; unchanged when either row is missing.
    /// </summary>
    public RatioResult WithRuns(ScenarioResult? numerator, ScenarioResult? denominator, Func<ScenarioResult, Summary?> figure)
    {
        ArgumentNullException.ThrowIfNull(figure);
        return numerator is null || denominator is null
            ? this
            : (this with { Sides = (numerator, denominator) }).WithRuns(figure(numerator)?.Samples, figure(denominator)?.Samples);
    }

    /// <summary>
    /// This goal with why its runs ended, from its verdict and the suite's <paramref name="stop"/>; unchanged without a
    /// verdict. When <paramref name="runsAdded"/>, a goal's interval is drawn at <see cref="RatioStatistics.AddedRunsLevel"/>
    /// first, the level the adaptive loop decided on (docs/bench.md, Adaptive runs).
    /// </summary>
    public RatioResult WithStop(Measure.AdaptiveStop stop, bool runsAdded = false) =>
        (runsAdded && Goal is not null ? AtLevel(RatioStatistics.AddedRunsLevel) : this).StopFromVerdict(stop);

    private RatioResult StopFromVerdict(Measure.AdaptiveStop stop) => Verdict switch
    {
        null => this,
        "met" or "missed" => this with { Stop = StopConclusive },
        _ => this with
        {
            Stop = stop switch
            {
                Measure.AdaptiveStop.TimeCap => StopTimeCap,
                Measure.AdaptiveStop.Ceiling => StopCeiling,
                _ => StopMinimumRuns,
            },
        },
    };
}
