using System.Globalization;
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
    /// is inconclusive (default 15, so the default run stays near 5 minutes; 60 with --full; 0, the --quick default,
    /// adds none). Per suite, so one noisy suite cannot eat another's time; the whole run's bound is this times the
    /// suites that add runs.
    /// </summary>
    public double MaxSeconds { get; init; } = 15;

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

    public const string Usage = """
        usage: freight bench [--suite transfer|json|threads|static|files|tus|micro] [--full | --quick] [--runs N] [--run-seconds S] [--warmup-seconds S]
                             [--max-seconds S]
                             [--size BYTES] [--records N] [--temp-dir DIR] [--ramp-to N] [--ramp-seconds S] [--tus-node-dir DIR]
                             [--store fs|s3] [--micro-job short|default]
                             [--target URL [--certificate-sha256 HEX]] [--json FILE] [--filter TEXT] [--cpu-affinity]
                             [--no-progress] [--no-report]
          --suite NAME        a suite to run (repeatable); default: transfer, json, threads, static, files (tus, micro only when named)
                              default: each suite's headline rows (its goals and the studies' main ratios), every
                              suite in about 5 minutes (planned)
          --full              every suite's whole matrix: every variant, size and connection count (about 18 minutes)
          --quick             the CI smoke: the default's rows, shorter runs and payloads
          --runs N            measured runs per scenario, interleaved (default 5, --quick 3; static suite: rounds, default 3)
          --run-seconds S     each run repeats the transfer for at least S seconds (default 0.5, --full 1, --quick 0.25;
                              static suite: 1, --full 2)
          --max-seconds S     per suite, the most seconds spent adding runs of goal rows while a goal is
                              inconclusive (default 15, --full 60; 0 adds none, the --quick default); never past 30 runs a row
          --size BYTES        transfer payload size (default 20971520, study 1's 20 MiB); tus suite: its only size
          --records N         records per JSON response (default 80000, about 26 MB: study 2's size)
          --temp-dir DIR      ASPNETCORE_TEMP of the embedded servers (put it on a slow disk for study 2)
          --ramp-to N         threads suite: connections at the end of the ramp (default 200, --full 500, --quick 100)
          --ramp-seconds S    threads suite: ramp length (default 10, --full 20, --quick 8; 60 is closer to study 3)
          --tus-node-dir DIR  tus suite: the @tus/server peer's package (default: peers/tus-node of this clone)
          --store fs|s3       files suite: where the embedded server stores files (default fs, its data directory);
                              s3: in a Ceph RGW the bench starts (scripts/rgw.sh; installed by scripts/install-rgw.sh,
                              root), beside peer/s3-direct (the same client straight to RGW); only with --suite files
          --micro-job JOB     micro suite (BenchmarkDotNet, bench/Freight.Micro): short (default; about 2 minutes) or default
                              (BenchmarkDotNet's own iteration counts: tens of minutes)
          --target URL        measure a running freight serve instead of starting one
          --json FILE         where to write the result JSON (default freight-results/bench-<time>.json)
          --filter TEXT       only scenarios whose id contains TEXT (or one of its comma-separated parts)
          --cpu-affinity      pin the server to CPU 0 and the bench to CPU 1 (steadier figures)
          --no-progress       plain progress lines, no live display (it is only drawn on a terminal anyway)
          --no-report         do not write the HTML report (RESULT.html beside the result JSON)
        """;

    /// <summary>Parses the command line; returns null and an error message when it is not valid.</summary>
    public static BenchOptions? Parse(IReadOnlyList<string> args, out string? error)
    {
        error = null;
        var options = new BenchOptions();
        var suites = new List<string>();
        bool quick = false, full = false;
        int? runs = null, rampTo = null;
        double? runSeconds = null, warmupSeconds = null, rampSeconds = null, maxSeconds = null;
        for (var i = 0; i < args.Count; i++)
        {
            string Value()
            {
                if (i + 1 >= args.Count)
                {
                    throw new FormatException($"{args[i]} needs a value.");
                }

                return args[++i];
            }

            try
            {
                switch (args[i])
                {
                    case "--suite":
                        var suite = Value();
                        suites.Add(KnownSuites.Contains(suite) ? suite : throw new FormatException($"unknown suite '{suite}'; suites: {string.Join(", ", KnownSuites)}."));
                        break;
                    case "--quick":
                        quick = true;
                        break;
                    case "--full":
                        full = true;
                        break;
                    case "--runs":
                        runs = PositiveInt(Value(), "--runs");
                        break;
                    case "--run-seconds":
                        runSeconds = PositiveDouble(Value(), "--run-seconds");
                        break;
                    case "--max-seconds":
                        maxSeconds = double.TryParse(Value(), NumberStyles.Float, CultureInfo.InvariantCulture, out var cap) && cap >= 0 && double.IsFinite(cap)
                            ? cap
                            : throw new FormatException("--max-seconds needs a number of seconds, 0 or more.");
                        break;
                    case "--warmup-seconds":
                        warmupSeconds = double.Parse(Value(), CultureInfo.InvariantCulture);
                        break;
                    case "--size":
                        options = options with { PayloadBytes = PositiveInt(Value(), "--size"), SizeGiven = true };
                        break;
                    case "--target":
                        options = options with { Target = Uri.TryCreate(Value(), UriKind.Absolute, out var target) && target.Scheme is "http" or "https" ? target : throw new FormatException("--target needs an http:// or https:// URL.") };
                        break;
                    case "--certificate-sha256":
                        options = options with { CertificateSha256 = Value() };
                        break;
                    case "--records":
                        options = options with { JsonRecords = PositiveInt(Value(), "--records") };
                        break;
                    case "--temp-dir":
                        options = options with { TempDirectory = Path.GetFullPath(Value()) };
                        break;
                    case "--ramp-to":
                        rampTo = PositiveInt(Value(), "--ramp-to");
                        break;
                    case "--ramp-seconds":
                        rampSeconds = PositiveDouble(Value(), "--ramp-seconds");
                        break;
                    case "--tus-node-dir":
                        options = options with { TusNodeDirectory = Path.GetFullPath(Value()) };
                        break;
                    case "--store":
                        var store = Value();
                        options = options with { Store = FilesSuite.Stores.Contains(store) ? store : throw new FormatException($"unknown store '{store}'; stores: {string.Join(", ", FilesSuite.Stores)}.") };
                        break;
                    case "--micro-job":
                        var job = Value();
                        options = options with { MicroJob = MicroSuite.Jobs.Contains(job) ? job : throw new FormatException($"unknown micro job '{job}'; jobs: {string.Join(", ", MicroSuite.Jobs)}.") };
                        break;
                    case "--json":
                        options = options with { JsonPath = Value() };
                        break;
                    case "--filter":
                        options = options with { Filter = Value() };
                        break;
                    case "--cpu-affinity":
                        options = options with { CpuAffinity = true };
                        break;
                    case "--no-progress":
                        options = options with { NoProgress = true };
                        break;
                    case "--no-report":
                        options = options with { NoReport = true };
                        break;
                    default:
                        throw new FormatException($"unknown option '{args[i]}'.");
                }
            }
            catch (FormatException invalid)
            {
                error = invalid.Message;
                return null;
            }
        }

        if (options.Store == FilesSuite.S3Store)
        {
            // The store belongs to the embedded server every suite shares: s3 is measured by the files suite alone.
            if (suites.Count == 0 || suites.Any(s => s != FilesSuite.Name))
            {
                error = $"--store s3 measures the files suite only: use it with --suite files and no other suite.";
                return null;
            }

            if (options.Target is not null)
            {
                error = "--store s3 starts its own RGW and embedded server; it cannot measure a --target (whose store is its own).";
                return null;
            }
        }

        if (quick && full)
        {
            error = "--quick and --full exclude each other: --quick is a shorter default run, --full the whole matrix.";
            return null;
        }

        return options with
        {
            Suites = suites.Count > 0 ? suites : AllSuites,
            Quick = quick,
            Full = full,
            Runs = runs ?? (quick ? 3 : 5),
            RunsGiven = runs is not null,
            RunSecondsGiven = runSeconds is not null,
            RunSeconds = runSeconds ?? (quick ? 0.25 : full ? 1.0 : 0.5),
            MaxSeconds = maxSeconds ?? (quick ? 0 : full ? 60 : 15),
            WarmupSeconds = warmupSeconds ?? (quick ? 0.25 : 0.5),
            ThreadsRampTo = rampTo ?? (quick ? 100 : full ? 500 : 200),
            ThreadsRampSeconds = rampSeconds ?? (quick ? 8 : full ? 20 : 10),
        };
    }

    private static int PositiveInt(string text, string name) =>
        int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value > 0 ? value : throw new FormatException($"{name} needs a positive whole number.");

    private static double PositiveDouble(string text, string name) =>
        double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) && value > 0 ? value : throw new FormatException($"{name} needs a positive number.");
}
