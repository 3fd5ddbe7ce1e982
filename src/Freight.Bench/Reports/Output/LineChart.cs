namespace Freight.Bench.Reports.Output;

/// <summary>
/// Lines, one per scenario: latency percentile curves (x = the category labels p50 … max) or per-second time
/// series (x = the second of the run).
/// </summary>
public sealed class LineChart(string id, string title, string unit, string xTitle, IReadOnlyList<ChartSeries> series, IReadOnlyList<string>? xLabels = null)
    : ReportChart(id, title, unit)
{
    public string XTitle { get; } = xTitle;

    public IReadOnlyList<ChartSeries> Series { get; } = series;

    /// <summary>Category labels for x = 0, 1, …; null when x is a number (seconds).</summary>
    public IReadOnlyList<string>? XLabels { get; } = xLabels;

    public override int PointCount => Series.Sum(s => s.Points.Count);
}
