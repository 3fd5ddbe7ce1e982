namespace Freight.Bench.Results;

/// <summary>A figure a study published for a variant, shown beside ours.</summary>
public sealed record PublishedFigure(double Value, string Unit, int Study, string Label);
