namespace Freight.Bench.Tests.Reports;

/// <summary>What render.mjs printed: the page's errors and requests, its charts' data points, the scenarios it lacks.</summary>
internal sealed record RenderResult(
    string Title,
    int Tables,
    IReadOnlyList<RenderedChart> Charts,
    IReadOnlyList<string> MissingScenarios,
    IReadOnlyList<string> ConsoleErrors,
    IReadOnlyList<string> PageErrors,
    IReadOnlyList<string> Requests,
    string Screenshot);
