using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Static;

/// <summary>
/// <c>--suite static</c>: study 4 — small and mid-size files served by the stock StaticFiles
/// middleware, the stock <c>Results.File</c>, Freight's download path, and nginx (when installed), under
/// keep-alive load at 10, 32 and 256 connections; plus wrk on static/freight and nginx at 32 connections,
/// to show whether the load engine or the server sets the pace.
/// </summary>
public static class StaticSuite
{
    public const string Name = "static";

    public const string StaticFiles = "static/staticfiles";
    public const string ResultsFile = "static/results-file";
    public const string Freight = "static/freight";
    public const string Nginx = "peer/nginx";

    public static readonly IReadOnlyList<long> FileSizes = [4 * 1024, 16 * 1024, 128 * 1024, 1024 * 1024];

    public static readonly IReadOnlyList<int> ConnectionCounts = [10, 32, 256];

    /// <summary>The connection count the goals and the wrk rows use.</summary>
    public const int GoalConnections = 32;

    /// <summary>
    /// The rows, grouped by (file size, connections) in the order they run. <paramref name="full"/> (and not
    /// <paramref name="quick"/>): every variant at 10, 32 and 256 connections, and wrk's rows. Otherwise the
    /// headline rows the goals are drawn from, at 32 connections: the stock StaticFiles and Freight under the load
    /// engine (study 4's goals, two .NET servers under one client), and Freight and nginx under wrk (issue 20's
    /// goals against nginx, measured as the issue states them: the engine's own CPU a response differs by server,
    /// 18 µs against Freight's and 33 µs against nginx's at 16 KiB, docs/results/2026-11-27-nginx-file-cache.md, so
    /// its ratio between two servers is partly the client's). Rows of <see cref="Nginx"/> and wrk are included; the
    /// runner drops them when nginx or wrk is missing.
    /// </summary>
    public static IReadOnlyList<StaticScenario> Create(bool quick, bool full = true)
    {
        if (quick || !full)
        {
            // The goal rows, and the A/A control as in the full matrix (static/freight at 4 KiB, last in its group).
            return [.. FileSizes.SelectMany(size => new StaticScenario?[]
                {
                    new(StaticFiles, size, GoalConnections, Published: Study(size, GoalConnections, baseline: true)),
                    new(Freight, size, GoalConnections, Published: Study(size, GoalConnections, baseline: false)),
                    size == FileSizes[0] ? new(Freight, size, GoalConnections, AaCopy: true) : null,
                    new(Freight, size, GoalConnections, StaticScenario.Wrk),
                    new(Nginx, size, GoalConnections, StaticScenario.Wrk, NginxReference(size, GoalConnections)),
                }.OfType<StaticScenario>())];
        }

        var rows = new List<StaticScenario>();
        foreach (var size in FileSizes)
        {
            foreach (var connections in ConnectionCounts)
            {
                rows.Add(new(StaticFiles, size, connections, Published: Study(size, connections, baseline: true)));
                rows.Add(new(ResultsFile, size, connections));
                rows.Add(new(Freight, size, connections, Published: Study(size, connections, baseline: false)));
                rows.Add(new(Nginx, size, connections, Published: NginxReference(size, connections)));
                if (size == FileSizes[0] && connections == GoalConnections)
                {
                    // The A/A control, last in its group: static/freight at 4 KiB and the goals' 32 connections, the
                    // row of the two 4 KiB req/s goals. Rounds are timed, so every row costs the same; the smallest
                    // file is the most sensitive to per-request overhead, so its noise bounds the suite's req/s goals.
                    rows.Add(new(Freight, size, connections, AaCopy: true));
                }
            }

            rows.Add(new(Freight, size, GoalConnections, StaticScenario.Wrk));
            rows.Add(new(Nginx, size, GoalConnections, StaticScenario.Wrk, NginxReference(size, GoalConnections)));
        }

        return rows;
    }

    /// <summary>
    /// Study 4's requests/s (a 12-core server, wrk-style load): the stock file path as baseline and with
    /// the pull request's PipeWriter change — the closest published analogue of Freight's path.
    /// </summary>
    private static PublishedFigure? Study(long size, int connections, bool baseline) => (size / 1024, connections) switch
    {
        (4, 256) => new(baseline ? 89_248 : 101_902, "req/s", 4, baseline ? "stock, 12 cores" : "PipeWriter change, 12 cores"),
        (16, 256) => new(baseline ? 69_724 : 70_270, "req/s", 4, baseline ? "stock, 12 cores" : "PipeWriter change, 12 cores"),
        (16, 10) => new(baseline ? 26_737 : 29_590, "req/s", 4, baseline ? "stock, 12 cores" : "PipeWriter change, 12 cores"),
        (128, 32) => new(baseline ? 8_960 : 8_976, "req/s", 4, baseline ? "stock, 12 cores" : "PipeWriter change, 12 cores"),
        _ => null,
    };

    /// <summary>Reference figures measured earlier on this machine: nginx, 1 worker, wrk 1 thread, 32 connections.</summary>
    private static PublishedFigure? NginxReference(long size, int connections) => (size / 1024, connections) switch
    {
        (4, 32) => new(80_000, "req/s", 0, "this machine, wrk"),
        (16, 32) => new(59_000, "req/s", 0, "this machine, wrk"),
        (128, 32) => new(19_000, "req/s", 0, "this machine, wrk"),
        _ => null,
    };
}
