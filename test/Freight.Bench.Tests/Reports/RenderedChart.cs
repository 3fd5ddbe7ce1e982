namespace Freight.Bench.Tests.Reports;

/// <summary>One <c>&lt;svg data-chart&gt;</c> as Chromium laid it out.</summary>
internal sealed record RenderedChart(string Id, string Kind, string? Title, int Points, int VisiblePoints, int DeclaredPoints, int? TableRows, IReadOnlyList<string?> Series);
