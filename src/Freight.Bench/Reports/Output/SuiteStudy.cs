using Freight.Bench.Results;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// What the report says about a suite: the study it reproduces, the figure its bar chart compares, and the
/// key that splits its rows into charts of comparable bars (a 4 KiB file's requests/s is not a 1 MiB file's; a ramp's
/// latency is not the engine check's requests/s).
/// </summary>
/// <param name="OneLoadRun">
/// <c>freight load</c>'s results: a table of what load is for (the verdict, each side's CPU per GiB, the failures by kind)
/// and one of the parameters, said once, so the headings do not repeat them.
/// </param>
internal sealed record SuiteStudy(string Title, string Note, IReadOnlyList<BarMetric> Metrics, Func<ScenarioResult, string?>? ChartPer = null, bool OneLoadRun = false)
{
    public static SuiteStudy For(string suite) => suite switch
    {
        "transfer" => new(
            "transfer — study 1: upload and download throughput",
            "Study 1 (2017): Kestrel and HttpClient moving 20 MiB one request at a time. Its published MiB/s were measured on ASP.NET Core 1.1 on another machine: read them as orientation, not as a score. tcp/loopback is the ceiling: the same bytes over plain loopback TCP.",
            [BarMetric.Throughput]),
        "json" => new(
            "json — study 2: a 25 MB JSON response",
            "Study 2: about 25 MB of JSON from an MVC action; published: 6–7 s per response with Newtonsoft buffered through a temp file (20+ s on a slow disk), about 4 s unbuffered or with System.Text.Json.",
            [BarMetric.TimePerResponse, BarMetric.RequestsPerSecond]),
        "threads" => new(
            "threads — study 3: synchronous vs asynchronous waits under load",
            "Study 3: Thread.Sleep(1000) against await Task.Delay(1000) under a ramp of connections; published: the sleeping action backed up to about 57 s, the awaiting one stayed at about 1 s.",
            [BarMetric.LatencyMax, BarMetric.RequestsPerSecond],
            CompareKey.LabelOf),
        "static" => new(
            "static — study 4: static files through the PipeWriter",
            "Study 4: the ASP.NET Core change that wrote files through the response PipeWriter, measured on a 12-core server with wrk-style load; published requests/s beside ours on 2 cores shared by client and server.",
            [BarMetric.RequestsPerSecond, BarMetric.Throughput],
            r => Size(r.Parameters.FileBytes)),
        "files" => new(
            "files — the files API against nginx",
            "Freight's files API (PUT and GET on disk) beside nginx (WebDAV PUT, sendfile GET) and the lab's paths on the same bytes; no study published these.",
            [BarMetric.Throughput],
            r => Size(r.Parameters.PayloadBytes)),
        "tus" => new(
            "tus — resumable uploads (tus 1.0)",
            "Freight's /tus/ beside @tus/server (peer/tus-node) and the files API's single PUT of the same bytes; no study published these.",
            [BarMetric.Throughput],
            r => Size(r.Parameters.PayloadBytes)),
        "micro" => new(
            "micro — socket-free hot paths under BenchmarkDotNet",
            "One core's throughput (CPU time of the benchmark thread) over each input: Freight's multipart parser beside ASP.NET Core's MultipartReader and the bare vectorized delimiter search on a normal 20 MiB body and four hostile ones, header parsing, key validation and hashing. One chart per input.",
            [BarMetric.Throughput],
            r => r.Scenario[(r.Scenario.LastIndexOf('/') + 1)..]),
        "load" => new(
            "load — freight load",
            "freight load against any HTTP endpoint (one run, or --runs N one after another): the verdict says which side saturated, and the CPU per GiB is what each side spent for what it moved, which moves far less with a neighbour than the rates do (docs/load.md).",
            [BarMetric.Throughput, BarMetric.RequestsPerSecond, BarMetric.TimePerResponse],
            OneLoadRun: true),
        _ => new(suite, "", [BarMetric.Throughput, BarMetric.RequestsPerSecond, BarMetric.TimePerResponse]),
    };

    /// <summary>A size parameter as a chart's key (<c>4 KiB</c>, <c>1 GiB</c>); null when the row has none.</summary>
    private static string? Size(long? bytes) => bytes is { } size ? SizeText.Format(size) : null;
}
