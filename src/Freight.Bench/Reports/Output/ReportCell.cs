namespace Freight.Bench.Reports.Output;

/// <summary>One table cell: the text every output shows, and the number behind it where there is one (CSV writes the number).</summary>
public readonly record struct ReportCell(string Text, double? Value = null)
{
    public static ReportCell Empty { get; } = new("");

    public static ReportCell Of(string? text) => new(text ?? "");

    /// <summary>A figure, formatted as <see cref="ReportNumber.Format"/> does; empty when there is none.</summary>
    public static ReportCell Of(double? value, bool integer = false, string suffix = "") =>
        value is { } v && double.IsFinite(v) ? new(ReportNumber.Format(v, integer) + suffix, v) : Empty;

    public bool IsNumber => Value is not null;
}
