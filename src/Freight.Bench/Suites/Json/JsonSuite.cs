using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Json;

/// <summary>
/// <c>--suite json</c>: study 2 — a ~25 MB JSON response through Newtonsoft buffered via a temp
/// file (the default of <c>AddNewtonsoftJson()</c>), Newtonsoft unbuffered, System.Text.Json straight into
/// the response PipeWriter, and System.Text.Json streamed from an <c>IAsyncEnumerable</c> — one client at
/// a time and eight at once.
/// </summary>
public static class JsonSuite
{
    public const string Name = "json";

    public const string NewtonsoftBuffered = "json/newtonsoft-buffered";
    public const string NewtonsoftUnbuffered = "json/newtonsoft-unbuffered";
    public const string Stj = "json/stj";
    public const string StjStream = "json/stj-stream";

    /// <summary>
    /// The published total times are for one response on the study's hosts (seconds). <paramref name="full"/>: one
    /// client and eight at once; otherwise one client, where the study measured and every goal is stated.
    /// </summary>
    public static IReadOnlyList<JsonScenario> Create(int records, bool full = true)
    {
        var scenarios = new List<JsonScenario>();
        foreach (var concurrency in full ? new[] { 1, 8 } : [1])
        {
            var published = concurrency == 1;
            scenarios.Add(new(NewtonsoftBuffered, concurrency, records, published ? new PublishedFigure(6.5, "s", 2, "J1 local; 20+ s slow disk") : null));
            scenarios.Add(new(NewtonsoftUnbuffered, concurrency, records, published ? new PublishedFigure(4, "s", 2, "J2") : null));
            scenarios.Add(new(Stj, concurrency, records, published ? new PublishedFigure(4, "s", 2, "J3") : null));
            scenarios.Add(new(StjStream, concurrency, records));
        }

        // The A/A control, last in each pass: stj at c=1, the faster side of the suite's goal (most responses a run,
        // so the steadiest p50 of the goal rows) measured again; its ratio holds the noise of the c=1 goal rows.
        scenarios.Add(new(Stj, 1, records, AaCopy: true));
        return scenarios;
    }
}
