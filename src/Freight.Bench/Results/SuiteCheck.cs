using System.Globalization;
using Freight.Bench.Reports;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Results;

/// <summary>
/// One suite's A/A control and how its runs ended. <see cref="Control"/> is the ratio of the copy row over its
/// original (null when the suite has none or it has no interval, e.g. one run); <see cref="Unreliable"/> is true
/// when that interval excludes 1.0.
/// </summary>
/// <param name="Stop"><c>conclusive</c>, <c>time-cap</c>, <c>run-ceiling</c> or <c>off</c> (no runs added).</param>
/// <param name="Passes">Interleaved passes made: the minimum runs and any added.</param>
public sealed record SuiteCheck(string Suite, RatioResult? Control, string Stop, int Passes, double MaxSeconds)
{
    /// <summary>The A/A interval's multiplicative half-width, √(high/low) − 1: the smallest difference this run can tell.</summary>
    public double? NoiseFloor => Control?.Interval is { } interval ? AaControl.NoiseFloor(interval) : null;

    public bool Unreliable => Control?.Interval is { } interval && RatioStatistics.IsUnreliable(interval);

    /// <summary>What the console and the reports say when a suite's A/A failed.</summary>
    public const string UnreliableText = "UNRELIABLE RUN: an A/A control's interval excludes 1.0 (the same scenario measured twice differed), so this run's noise is larger than its intervals admit: do not trust its verdicts; run again, quieter";

    /// <summary>The suite's noise-floor line: its A/A ratio, interval and floor, and whether it held 1.0.</summary>
    public string NoiseText()
    {
        if (Control is null)
        {
            return $"{Suite}: no A/A control measured (its row or its original did not verify, or was filtered out)";
        }

        if (Control.Interval is not { } interval)
        {
            return $"{Suite}: A/A {Control.Numerator} / {Control.Denominator} {Figure(Control.Value)}×, no interval (fewer than 2 runs): no noise floor";
        }

        return string.Create(CultureInfo.InvariantCulture,
            $"{Suite}: noise floor ±{NoiseFloor * 100:0.0} % (A/A {Control.Numerator} / {Control.Denominator} {Figure(interval.Estimate)}× [{Figure(interval.Low)}–{Figure(interval.High)}], {CountText.Format(interval.Runs, "run")}){(Unreliable ? " — UNRELIABLE: the interval excludes 1.0" : ", holds 1.0")}");
    }

    /// <summary>The suite's adaptive-runs line: why its runs ended.</summary>
    public string RunsText() => Stop switch
    {
        "conclusive" => FormattableString.Invariant($"{Suite}: every goal conclusive after {CountText.Format(Passes, "run")} (cap {MaxSeconds:0} s)"),
        "time-cap" => FormattableString.Invariant($"{Suite}: time cap reached ({MaxSeconds:0} s of added runs), a goal still inconclusive after {CountText.Format(Passes, "run")}"),
        "run-ceiling" => FormattableString.Invariant($"{Suite}: run ceiling reached, a goal still inconclusive after {CountText.Format(Passes, "run")}"),
        _ => FormattableString.Invariant($"{Suite}: {CountText.Format(Passes, "run")}, none added ({(MaxSeconds > 0 ? "the suite adds none" : "--max-seconds 0")})"),
    };

    private static string Figure(double? value) => value?.ToString("0.000", CultureInfo.InvariantCulture) ?? "n/a";

    /// <summary>
    /// The check of a suite whose runs ended with <paramref name="runs"/>: its A/A ratio (the one whose numerator is a
    /// copy row) taken from <paramref name="ratios"/>.
    /// </summary>
    public static SuiteCheck Of(string suite, IEnumerable<RatioResult> ratios, Measure.AdaptiveStop stop, int passes, double maxSeconds)
    {
        ArgumentNullException.ThrowIfNull(ratios);
        var control = ratios.FirstOrDefault(r => r.Sides is { } sides && AaControl.IsCopy(sides.Numerator.Scenario));
        return new SuiteCheck(suite, control, StopName(stop), passes, maxSeconds);
    }

    private static string StopName(Measure.AdaptiveStop stop) => stop switch
    {
        Measure.AdaptiveStop.Conclusive => "conclusive",
        Measure.AdaptiveStop.TimeCap => "time-cap",
        Measure.AdaptiveStop.Ceiling => "run-ceiling",
        _ => "off",
    };
}
