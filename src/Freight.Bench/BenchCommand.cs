using System.CommandLine;
using System.CommandLine.Parsing;
using Freight.Bench.Cli;
using Freight.Bench.Progress;
using Freight.Bench.Suites.Files;
using Freight.Bench.Suites.Micro;
using CliCommand = System.CommandLine.Command;

namespace Freight.Bench;

/// <summary>
/// <c>freight bench</c>'s command line, defined once with System.CommandLine: the help, the validation and its
/// messages come from these definitions; <see cref="Bind"/> turns a valid parse into the <see cref="BenchOptions"/>
/// the runner consumes. Exit 0, 1 when a goal or a verification failed, 2 on a usage error, 130 on Ctrl+C.
/// </summary>
public static class BenchCommand
{
    public const int Canceled = 130;

    /// <summary>What <c>--runs 1</c> is told before it runs (docs/bench.md, Intervals and verdicts).</summary>
    private static readonly string OneRunNote =
        $"note: --runs 1: a goal's interval needs {Verdicts.RatioStatistics.MinimumRuns} runs a row; with one, each goal is read off one figure (\"met (no interval)\" or \"MISSED (no interval)\"), " +
        "unless added runs (--max-seconds; the static suite adds none) give its rows a second.";

    private static readonly Option<string[]> Suite = new("--suite")
    {
        Description = $"A suite to run (repeatable): {string.Join(", ", BenchOptions.KnownSuites)}. Default: {string.Join(", ", BenchOptions.AllSuites)} ({string.Join(" and ", BenchOptions.OptInSuites)} only when named), each suite's headline rows (its goals and the studies' main ratios), every suite in about 5 minutes.",
        HelpName = "NAME",
        AllowMultipleArgumentsPerToken = false,
        Validators =
        {
            result =>
            {
                foreach (var token in result.Tokens)
                {
                    if (!BenchOptions.KnownSuites.Contains(token.Value))
                    {
                        result.AddError($"--suite: unknown suite '{token.Value}'; suites: {string.Join(", ", BenchOptions.KnownSuites)}.");
                    }
                }
            },
        },
    };

    private static readonly Option<bool> Full = new("--full") { Description = "Every suite's whole matrix: every variant, size and connection count (about 18 minutes)." };

    private static readonly Option<bool> Quick = new("--quick") { Description = "The CI smoke: the default's rows, shorter runs and payloads." };

    private static readonly Option<int?> Runs = CliValues.PositiveInt(
        "--runs",
        $"Measured runs per scenario, interleaved (default 5, --quick 3; static suite: rounds, default 3). A goal's interval needs {Verdicts.RatioStatistics.MinimumRuns} runs and is wide below 5; with 1 a goal is read off one figure (\"no interval\") unless added runs give it a second.");

    private static readonly Option<double?> RunSeconds = CliValues.Number("--run-seconds", "Each run repeats the transfer for at least S seconds (default 0.5, --full 1, --quick 0.25; static suite: 1, --full 2).", unit: CliValues.Seconds);

    private static readonly Option<double?> WarmupSeconds = CliValues.Number("--warmup-seconds", "Untimed transfers per scenario before the first run, for S seconds (default 0.5, --quick 0.25).", zeroAllowed: true, unit: CliValues.Seconds);

    private static readonly Option<double?> MaxSeconds = CliValues.Number(
        "--max-seconds", "Per suite, the most seconds spent adding runs of goal rows while a goal is inconclusive (default 10, --full 60; 0 adds none, the --quick default); never past 30 runs a row.", zeroAllowed: true, unit: CliValues.Seconds);

    private static readonly Option<int?> Size = CliValues.PositiveInt("--size", "Transfer payload size (default 20971520, study 1's 20 MiB); tus suite: its only size.", "BYTES");

    private static readonly Option<int?> Records = CliValues.PositiveInt("--records", "Records per JSON response (default 80000, about 26 MB: study 2's size).");

    private static readonly Option<string?> TempDir = new("--temp-dir") { Description = "ASPNETCORE_TEMP of the embedded servers (put it on a slow disk for study 2).", HelpName = "DIR" };

    private static readonly Option<int?> RampTo = CliValues.PositiveInt("--ramp-to", "Threads suite: connections at the end of the ramp (default 200, --full 500, --quick 100).");

    private static readonly Option<double?> RampSeconds = CliValues.Number("--ramp-seconds", "Threads suite: ramp length (default 10, --full 20, --quick 8; 60 is closer to study 3).", unit: CliValues.Seconds);

    private static readonly Option<string?> TusNodeDir = new("--tus-node-dir") { Description = "Tus suite: the @tus/server peer's package (default: peers/tus-node of this clone).", HelpName = "DIR" };

    private static readonly Option<string?> Store = CliValues.OneOf(
        "--store",
        "Files suite: where the embedded server stores files (default fs, its data directory); s3: in a Ceph RGW the bench starts (scripts/rgw.sh; installed by scripts/install-rgw.sh, root), beside peer/s3-direct (the same client straight to RGW); only with --suite files.",
        FilesSuite.Stores,
        "store");

    private static readonly Option<string?> MicroJob = CliValues.OneOf(
        "--micro-job",
        "Micro suite (BenchmarkDotNet, bench/Freight.Micro): short (default; about 2 minutes) or default (BenchmarkDotNet's own iteration counts: tens of minutes).",
        MicroSuite.Jobs,
        "micro job");

    private static readonly Option<Uri?> Target = new("--target")
    {
        Description = "Measure a running freight serve at this URL instead of starting one.",
        HelpName = "URL",
        CustomParser = result => CliValues.HttpUrl(result, "--target"),
    };

    private static readonly Option<string?> CertificateSha256 = CliValues.Sha256Hex("--certificate-sha256", "--target https://: the SHA-256 of its certificate (freight serve prints it).");

    private static readonly Option<string?> Json = new("--json") { Description = "Where to write the result JSON (default freight-results/bench-<time>.json).", HelpName = "FILE" };

    private static readonly Option<string?> Filter = new("--filter") { Description = "Only scenarios whose id contains TEXT (or one of its comma-separated parts).", HelpName = "TEXT" };

    private static readonly Option<bool> CpuAffinity = new("--cpu-affinity") { Description = "Pin the server to CPU 0 and the bench to CPU 1 (steadier figures)." };

    private static readonly Option<bool> NoProgress = new("--no-progress") { Description = "Plain progress lines, no live display (it is only drawn on a terminal anyway)." };

    private static readonly Option<bool> NoReport = new("--no-report") { Description = "Do not write the HTML report (RESULT.html beside the result JSON)." };

    /// <summary>The command's definition; its action runs the bench with <paramref name="output"/> for the tables.</summary>
    public static CliCommand Create(TextWriter output, TextWriter error)
    {
        var command = new CliCommand("bench", "Measure the lab's variants against an embedded server or --target URL: every byte verified, throughput, latency and CPU seconds per GiB on each side.")
        {
            Suite, Full, Quick, Runs, RunSeconds, WarmupSeconds, MaxSeconds, Size, Records, TempDir, RampTo, RampSeconds, TusNodeDir, Store, MicroJob,
            Target, CertificateSha256, Json, Filter, CpuAffinity, NoProgress, NoReport,
        };
        command.Validators.Add(Validate);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var options = Bind(parse);
            if (UsageErrorBeforeRunning(options) is { } usage)
            {
                await error.WriteLineAsync("error: " + usage);
                return CliRun.UsageError;
            }

            // Allowed (a one-run smoke check has its uses), but its goals are not verdicts drawn from an interval: said up front.
            if (options.Runs < Verdicts.RatioStatistics.MinimumRuns)
            {
                await error.WriteLineAsync(OneRunNote);
            }

            // Live on a terminal, plain lines in logs and with --no-progress; disposed on the way out, Ctrl+C included.
            using var progress = BenchProgress.ForConsole(options);
            try
            {
                return await new BenchRunner(options, output, progress).RunAsync(cancellationToken);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Ctrl+C: the servers and peers the bench started are disposed on the way out; no figures.
                await error.WriteLineAsync("bench: canceled");
                return Canceled;
            }
        });
        return command;
    }

    /// <summary>Parses <paramref name="args"/> (what follows <c>freight bench</c>); null and the error message when they are not valid.</summary>
    public static BenchOptions? Parse(IReadOnlyList<string> args, out string? error)
    {
        var parse = CliRun.Parse(Create(TextWriter.Null, TextWriter.Null), args, out error);
        return parse is null ? null : Bind(parse);
    }

    /// <summary>What the parse cannot see and a run would find out only at its end: where its result goes, and whether --filter keeps anything.</summary>
    private static string? UsageErrorBeforeRunning(BenchOptions options)
    {
        if (options.JsonPath is { } json && OutputPath.WhyNotWritable(json) is { } why)
        {
            return $"--json {json} cannot be written: {why}";
        }

        // The micro suite's filter is BenchmarkDotNet's own: only it knows what matches there.
        if (options.Filter is { } filter && !options.Suites.Contains(MicroSuite.Name) && !BenchRunner.ScenarioIds(options).Any(options.Matches))
        {
            return $"--filter '{filter}' matches no scenario of the suites asked for ({string.Join(", ", options.Suites)}); ids match case-sensitively, as download/freight or files/put (docs/bench.md lists them).";
        }

        return null;
    }

    private static void Validate(CommandResult result)
    {
        try
        {
            if (result.GetValue(Quick) && result.GetValue(Full))
            {
                result.AddError("--quick and --full exclude each other: --quick is a shorter default run, --full the whole matrix.");
            }

            if (result.GetValue(CertificateSha256) is not null && result.GetValue(Target) is not { Scheme: "https" })
            {
                result.AddError("--certificate-sha256 pins the certificate of a --target https:// server: give it with one.");
            }

            if (result.GetValue(Store) == FilesSuite.S3Store)
            {
                // The store belongs to the embedded server every suite shares: s3 is measured by the files suite alone.
                var suites = result.GetValue(Suite) ?? [];
                if (suites.Length == 0 || Array.Exists(suites, s => s != FilesSuite.Name))
                {
                    result.AddError("--store s3 measures the files suite only: use it with --suite files and no other suite.");
                }
                else if (result.GetValue(Target) is not null)
                {
                    result.AddError("--store s3 starts its own RGW and embedded server; it cannot measure a --target (whose store is its own).");
                }
            }
        }
        catch (InvalidOperationException)
        {
            // A value that failed its own parse (its error is already reported) cannot be read: nothing more to say.
        }
    }

    /// <summary>The options of a parse that passed validation; the scope (--quick, --full) sets the defaults of what was not given.</summary>
    private static BenchOptions Bind(ParseResult parse)
    {
        var quick = parse.GetValue(Quick);
        var full = parse.GetValue(Full);
        var suites = parse.GetValue(Suite) ?? [];
        var runs = parse.GetValue(Runs);
        var runSeconds = parse.GetValue(RunSeconds);
        var size = parse.GetValue(Size);
        return new BenchOptions
        {
            Suites = suites.Length > 0 ? suites : BenchOptions.AllSuites,
            Quick = quick,
            Full = full,
            Runs = runs ?? (quick ? 3 : 5),
            RunsGiven = runs is not null,
            RunSecondsGiven = runSeconds is not null,
            RunSeconds = runSeconds ?? (quick ? 0.25 : full ? 1.0 : 0.5),
            MaxSeconds = parse.GetValue(MaxSeconds) ?? (quick ? 0 : full ? 60 : 10),
            WarmupSeconds = parse.GetValue(WarmupSeconds) ?? (quick ? 0.25 : 0.5),
            ThreadsRampTo = parse.GetValue(RampTo) ?? (quick ? 100 : full ? 500 : 200),
            ThreadsRampSeconds = parse.GetValue(RampSeconds) ?? (quick ? 8 : full ? 20 : 10),
            PayloadBytes = size ?? new BenchOptions().PayloadBytes,
            SizeGiven = size is not null,
            Target = parse.GetValue(Target),
            CertificateSha256 = parse.GetValue(CertificateSha256),
            JsonRecords = parse.GetValue(Records) ?? new BenchOptions().JsonRecords,
            TempDirectory = parse.GetValue(TempDir) is { } temp ? Path.GetFullPath(temp) : null,
            TusNodeDirectory = parse.GetValue(TusNodeDir) is { } tus ? Path.GetFullPath(tus) : null,
            Store = parse.GetValue(Store) ?? FilesSuite.FileSystemStore,
            MicroJob = parse.GetValue(MicroJob) ?? MicroSuite.ShortJob,
            JsonPath = parse.GetValue(Json),
            Filter = parse.GetValue(Filter),
            CpuAffinity = parse.GetValue(CpuAffinity),
            NoProgress = parse.GetValue(NoProgress),
            NoReport = parse.GetValue(NoReport),
        };
    }
}
