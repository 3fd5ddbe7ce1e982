namespace Freight.Bench.Reports.Output;

/// <summary>A table and, when its numbers make one, the chart drawn from them (same id).</summary>
public sealed record ReportFigure(ReportTable Table, ReportChart? Chart = null);
