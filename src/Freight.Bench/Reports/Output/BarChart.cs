namespace Freight.Bench.Reports.Output;

/// <summary>Horizontal bars, one category per row of the table beside it: our variants, the peers and the published figures.</summary>
public sealed class BarChart(string id, string title, string unit, IReadOnlyList<ChartBar> bars) : ReportChart(id, title, unit)
{
    public IReadOnlyList<ChartBar> Bars { get; } = bars;

    public override int PointCount => Bars.Count;
}
