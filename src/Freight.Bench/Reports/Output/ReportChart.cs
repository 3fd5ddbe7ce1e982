namespace Freight.Bench.Reports.Output;

/// <summary>A chart of the report; its numbers are in the table of the same id beside it.</summary>
public abstract class ReportChart(string id, string title, string unit)
{
    public string Id { get; } = id;

    public string Title { get; } = title;

    /// <summary>The unit of the values (the bar length, the y axis).</summary>
    public string Unit { get; } = unit;

    /// <summary>How many data points the chart draws (bars, or points of every line).</summary>
    public abstract int PointCount { get; }
}
