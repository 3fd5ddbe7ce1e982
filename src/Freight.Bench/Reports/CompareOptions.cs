namespace Freight.Bench.Reports;

/// <summary>Options of <c>freight compare</c>.</summary>
public sealed record CompareOptions
{
    public required IReadOnlyList<string> Files { get; init; }

    public bool Markdown { get; init; }

    /// <summary>Scenario ids to compare within each file (first = base) instead of comparing the files.</summary>
    public IReadOnlyList<string>? Scenarios { get; init; }

    public string? Output { get; init; }

    public double NoisePercent { get; init; } = CompareReport.DefaultNoisePercent;
}
