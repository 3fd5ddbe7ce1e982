using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>One row of a comparison table: its name with the unit, which way is better, and where its value comes from.</summary>
public sealed record CompareMetric(string Name, CompareDirection Direction, Func<ScenarioResult, double?> Value, bool Integer = false);
