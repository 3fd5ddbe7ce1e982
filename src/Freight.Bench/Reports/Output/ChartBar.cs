namespace Freight.Bench.Reports.Output;

/// <summary>One bar: its category (scenario and label), what it stands for, its value and, for measured bars, the min–max over the runs.</summary>
public sealed record ChartBar(string Category, BarKind Kind, double Value, double? Min = null, double? Max = null, string? Note = null);
