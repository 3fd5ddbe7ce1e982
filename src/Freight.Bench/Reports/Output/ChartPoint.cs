namespace Freight.Bench.Reports.Output;

/// <summary>One point of a line: x (a second, or the index of a category label) and y.</summary>
public readonly record struct ChartPoint(double X, double Y);
