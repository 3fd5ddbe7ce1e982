namespace Freight.Bench.Reports.Output;

/// <summary>One line of a line chart: a scenario and its points, in x order.</summary>
public sealed record ChartSeries(string Name, IReadOnlyList<ChartPoint> Points);
