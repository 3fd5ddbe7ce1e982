namespace Freight.Bench.Reports;

/// <summary>Options of <c>freight report</c>.</summary>
public sealed record ReportOptions
{
    public required IReadOnlyList<string> Files { get; init; }

    public string? Html { get; init; }

    public string? Markdown { get; init; }

    public string? CsvDirectory { get; init; }

    public string? SvgDirectory { get; init; }

    /// <summary>The page whose verdicts section to rewrite (docs/results/README.md).</summary>
    public string? Verdicts { get; init; }

    public double NoisePercent { get; init; } = CompareReport.DefaultNoisePercent;
}
