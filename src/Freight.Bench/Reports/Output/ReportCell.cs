using Freight.Bench.Verdicts;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// One table cell: the text every output shows, and the number behind it where there is one (CSV writes the number),
/// or the interval behind it (CSV writes its bounds and level as numbers).
/// </summary>
public readonly record struct ReportCell(string Text, double? Value = null)
{
    public static ReportCell Empty { get; } = new("");

    /// <summary>The interval this cell shows as "low–high", in a table's <see cref="ReportTable.IntervalColumn"/>.</summary>
    public RatioInterval? Interval { get; init; }

    public static ReportCell Of(string? text) => new(text ?? "");

    /// <summary>A figure, formatted as <see cref="ReportNumber.Format"/> does; empty when there is none.</summary>
    public static ReportCell Of(double? value, bool integer = false, string suffix = "") =>
        value is { } v && double.IsFinite(v) ? new(ReportNumber.Format(v, integer) + suffix, v) : Empty;

    /// <summary>An interval as "1.61–1.88×" (its level beside it when not 95 %: "at 99.5%"); empty when there is none.</summary>
    public static ReportCell Of(RatioInterval? interval, string unit) =>
        interval is null
            ? Empty
            : new($"{ReportNumber.Format(interval.Low)}–{ReportNumber.Format(interval.High)}{unit}{ConsoleReport.LevelNote(interval)}") { Interval = interval };

    public bool IsNumber => Value is not null;
}
