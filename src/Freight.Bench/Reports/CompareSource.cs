using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>A loaded result file and the name its column carries (the file name).</summary>
public sealed record CompareSource(string Name, BenchReport Report);
