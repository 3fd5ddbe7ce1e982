using Freight.Bench.Suites.Files;
using Freight.Bench.Suites.Json;
using Freight.Bench.Suites.Micro;
using Freight.Bench.Suites.Static;
using Freight.Bench.Suites.Threads;
using Freight.Bench.Suites.Transfer;
using Freight.Bench.Suites.Tus;
using Freight.Lab.Payload;

namespace Freight.Bench;

/// <summary>Options of <c>freight bench</c>.</summary>
public sealed record BenchOptions
{
    /// <summary>The suites a bench without --suite runs.</summary>
    public static readonly IReadOnlyList<string> AllSuites = [TransferSuite.Name, JsonSuite.Name, ThreadsSuite.Name, StaticSuite.Name, FilesSuite.Name];

    /// <summary>
    /// Suites that run only when named. tus: its full run uploads 1 GiB at least 42 times (seven rows, a
    /// warm-up and five runs each, every upload followed by a sync) and adds minutes to the default bench,
    /// its peer needs Node and an npm install, and the files suite already measures the files API's PUT.
    /// micro: it measures code, not the server, builds its own project first, and takes about 2 minutes (its
    /// default job tens of minutes).
    /// </summary>
    public static readonly IReadOnlyList<string> OptInSuites = [TusSuite.Name, MicroSuite.Name];

    /// <summary>Every suite --suite accepts.</summary>
    public static IReadOnlyList<string> KnownSuites => [.. AllSuites, .. OptInSuites];

    public IReadOnlyList<string> Suites { get; init; } = AllSuites;

    /// <summary>
    /// --quick: the CI smoke. The default run's headline rows (<see cref="Full"/> is false), with shorter runs and
    /// smaller payloads: every goal row shows, its figures are a check that the bench works, not a measurement.
    /// </summary>
    public bool Quick { get; init; }

    /// <summary>
    /// --full: every suite's whole matrix (every variant, size and connection count; what a bench without options ran
    /// until issue 19). Without it a suite measures only the rows its headline ratios and goals are drawn from.
    /// </summary>
    public bool Full { get; init; }

    /// <summary>Measured runs per scenario, interleaved across scenarios (default 5; 3 with --quick).</summary>
    public int Runs { get; init; } = 5;

    /// <summary>Whether --runs / --run-seconds were given (the static suite keeps its own defaults otherwise).</summary>
    public bool RunsGiven { get; init; }

    public bool RunSecondsGiven { get; init; }

    /// <summary>
    /// Adaptive runs: the most seconds each suite spends adding runs of its goal rows after the minimum, while a goal
    /// is inconclusive (default 10: with it the default run, the first run's Release build included, fits in 5
    /// minutes on the project's 2-core machine — 2026-11-27, docs/results/2026-11-27-default-five.md; 60 with --full;
    /// 0, the --quick default, adds none). Per suite, so one noisy suite cannot eat another's time; the whole run's bound is this times the
    /// suites that add runs.
    /// </summary>
    public double MaxSeconds { get; init; } = 10;

    /// Each run repeats the transfer for at least this long: 0.5 s by default (25–50 transfers of 20 MiB here, and
    /// five of them keep the transfer suite's headline rows near 40 s), 1 s with --full, 0.25 s with --quick.
    /// </summary>
    public double RunSeconds { get; init; } = 0.5;

    /// <summary>Untimed transfers per scenario before the first run (default 0.5 s; 0.25 s with --quick).</summary>
    public double WarmupSeconds { get; init; } = 0.5;

    public long PayloadBytes { get; init; } = DeterministicPayload.DefaultSize;

    /// <summary>Whether --size was given: the tus suite then measures that one size instead of its own.</summary>
    public bool SizeGiven { get; init; }

    /// <summary>A running server to measure instead of the embedded one.</summary>
    public Uri? Target { get; init; }

    /// <summary>SHA-256 of the target's certificate, for https targets with a self-signed certificate.</summary>
    public string? CertificateSha256 { get; init; }

    public string? JsonPath { get; init; }

    /// <summary>Pin the embedded server to CPU 0 and the bench to CPU 1.</summary>
    public bool CpuAffinity { get; init; }

    /// <summary>Records per JSON response in the json suite (default 80,000 ≈ 26–28 MB, study 2's size).</summary>
    public int JsonRecords { get; init; } = Freight.Lab.Json.LabRecordGenerator.DefaultRecordCount;

    /// <summary>
    /// Threads suite: connections at the end of the ramp. Default 200: a 1 s blocking action starves the pool of a
    /// 2-core server long before (study 3's effect shows at ~30). --full: 500, as study 3's load grew; --quick: 100.
    /// </summary>
    public int ThreadsRampTo { get; init; } = 200;

    /// <summary>
    /// Threads suite: ramp length. Default 10 s (the three scenarios then take about a minute with their drain);
    /// --full: 20 s (use 60 for a closer reproduction of the study); --quick: 8 s.
    /// </summary>
    public double ThreadsRampSeconds { get; init; } = 10;

    /// <summary>ASPNETCORE_TEMP of the embedded servers: put it on a slow disk to see study 2's effect.</summary>
    public string? TempDirectory { get; init; }

    /// <summary>The tus peer's package directory (default: peers/tus-node of the repository the bench runs from).</summary>
    public string? TusNodeDirectory { get; init; }

    /// <summary>
    /// Files suite: where the embedded server keeps its files — <c>fs</c> (default, its data directory) or <c>s3</c>
    /// (a Ceph RGW the bench starts, beside the same client talking to it directly). s3 runs the files suite alone.
    /// </summary>
    public string Store { get; init; } = FilesSuite.FileSystemStore;

    /// <summary>Micro suite: BenchmarkDotNet's job, <c>short</c> (default, about 2 minutes) or <c>default</c> (its own counts, tens of minutes).</summary>
    public string MicroJob { get; init; } = MicroSuite.ShortJob;

    /// <summary>Only scenarios whose id contains this text, or one of its comma-separated parts (<c>/freight,nginx-tls</c>).</summary>
    public string? Filter { get; init; }

    /// <summary>Whether <paramref name="id"/> passes <see cref="Filter"/> (every id does without one).</summary>
    public bool Matches(string id)
    {
        ArgumentNullException.ThrowIfNull(id);
        if (Filter is null)
        {
            return true;
        }

        foreach (var part in Filter.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (id.Contains(part, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Plain progress lines even on a terminal (the live display is only drawn on a terminal anyway).</summary>
    public bool NoProgress { get; init; }

    /// <summary>No HTML report beside the result JSON at the end of the run.</summary>
    public bool NoReport { get; init; }
}
