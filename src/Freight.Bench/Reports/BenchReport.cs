using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Reports;

/// <summary>
/// The result JSON of one bench run (the schema in docs/bench.md): SI units (bytes, seconds), camelCase. Fields may
/// be added; renaming or dropping one needs a migration note in docs/bench.md (Result JSON).
/// </summary>
public sealed class BenchReport
{
    public static readonly JsonSerializerOptions JsonOptions = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    public string Tool { get; init; } = "freight";

    public string Version { get; init; } = typeof(BenchReport).Assembly.GetName().Version?.ToString(3) ?? "0.0.0";

    public DateTimeOffset StartedAt { get; init; }

    public required MachineInfo Machine { get; init; }

    public required BenchSettings Settings { get; init; }

    /// <summary>Which cost measures this machine offered the run (CPU time always; instructions where perf can count them).</summary>
    public MeasuresOffered? Measures { get; init; }

    public bool Verified { get; set; }

    public List<ScenarioResult> Results { get; init; } = [];

    public List<RatioResult> Ratios { get; init; } = [];

    /// <summary>Each suite's A/A control (its noise floor) and why its runs ended (docs/bench.md, A/A control, Adaptive runs).</summary>
    public List<SuiteCheck> SuiteChecks { get; init; } = [];

    /// <summary>True when a suite's A/A interval excludes 1.0: the run's verdicts are not to be trusted (docs/bench.md).</summary>
    public bool Unreliable => SuiteChecks.Exists(c => c.Unreliable);
}

public sealed record MachineInfo(int Cpus, string Os, string Runtime, string Processor)
{
    public static MachineInfo Current()
    {
        var processor = "unknown";
        try
        {
            processor = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal))?.Split(':', 2)[1].Trim() ?? processor;
        }
        catch (IOException)
        {
        }

        return new MachineInfo(Environment.ProcessorCount, System.Runtime.InteropServices.RuntimeInformation.OSDescription,
            System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription, processor);
    }
}

/// <summary>
/// How the run was set up; <paramref name="Store"/> is the files suite's store (<c>fs</c> or <c>s3</c>), <paramref name="S3Server"/> the S3 server
/// behind it; <paramref name="Full"/> whether every suite ran its whole matrix (--full) or its headline rows.
/// </summary>
public sealed record BenchSettings(
    IReadOnlyList<string> Suites,
    bool Quick,
    int Runs,
    double RunSeconds,
    double WarmupSeconds,
    long PayloadBytes,
    bool CpuAffinity,
    string Target,
    string Store = "fs",
    string? S3Server = null,
    bool Full = false);

/// <summary>
/// The cost measures a run had: each side's CPU time (always, from the kernel's accounting), and the embedded server's
/// instructions per byte where <c>perf stat -e instructions</c> could count them; <paramref name="InstructionsUnavailable"/>
/// says why not (no perf, no hardware counter, perf_event_paranoid, a --target).
/// </summary>
public sealed record MeasuresOffered(bool CpuTime, bool Instructions, string? InstructionsUnavailable)
{
    public static MeasuresOffered Of(Measure.InstructionCounter counter)
    {
        ArgumentNullException.ThrowIfNull(counter);
        return new(true, counter.Available, counter.Unavailable);
    }

    /// <summary>The console's and the verdicts page's line.</summary>
    public string Describe() =>
        "measures: CPU time per side (every row); server instructions per byte: " + (Instructions ? "yes (perf stat)" : $"no — {InstructionsUnavailable}");
}

/// <summary>Median, minimum and maximum over the runs.</summary>
public sealed record Summary(double Median, double Min, double Max)
{
    /// <summary>
    /// One value per measured run, in run order (run i of every row of a suite was interleaved with run i of the
    /// others): what a goal's confidence interval is drawn from. Null where the figure is not one per run.
    /// </summary>
    public IReadOnlyList<double>? Samples { get; init; }

    public static Summary? Of(IReadOnlyList<double> values)
    {
        if (values.Count == 0)
        {
            return null;
        }

        var sorted = values.Order().ToArray();
        var middle = sorted.Length / 2;
        var median = sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        return new Summary(median, sorted[0], sorted[^1]);
    }

    /// <summary><see cref="Of"/> over one value per run, in run order, keeping them as <see cref="Samples"/>.</summary>
    public static Summary? OfRuns(IReadOnlyList<double> perRun) => Of(perRun) is { } summary ? summary with { Samples = [.. perRun] } : null;
}

/// <summary>What one side (server or client) spent over all measured runs of a scenario.</summary>
public sealed record SideCost(
    double? CpuSecondsPerGiB,
    double? AllocatedBytesPerTransfer = null,
    int? Gen0 = null,
    int? Gen1 = null,
    int? Gen2 = null,
    int? ThreadPoolThreadsMax = null,
    long? DiskBytesWritten = null,
    long? WorkingSetBytesMax = null,
    double? CpuSecondsPerResponse = null,
    double? DiskBytesWrittenPerResponse = null,
    double? StoreCpuSecondsPerGiB = null)
{
    /// <summary>Allocated bytes per transfer in each run, in run order (where a suite keeps them): what an allocation goal's interval is drawn from.</summary>
    public IReadOnlyList<double>? AllocatedBytesPerTransferRuns { get; init; }
    /// <summary>
    /// <see cref="CpuSecondsPerGiB"/> of each measured run, in run order (run i interleaved with run i of the other
    /// rows): what a cost goal's interval is drawn from. Null where the cost is not known per run.
    /// </summary>
    public IReadOnlyList<double>? CpuSecondsPerGiBSamples { get; init; }

    /// <summary>Instructions the process retired per byte moved, over every run (<c>perf stat</c>); null where the machine cannot count them.</summary>
    public double? InstructionsPerByte { get; init; }

    /// <summary><see cref="InstructionsPerByte"/> of each measured run, in run order.</summary>
    public IReadOnlyList<double>? InstructionsPerByteSamples { get; init; }
}

/// <summary>
/// One second of a load run: connections open, responses completed and their p50/p99 (client), and the
/// server's thread pool, queue, CPU and threads sampled in-process that second (null where no sample fell).
/// </summary>
public sealed record SeriesPoint(
    int Second,
    int Connections,
    long Completions,
    long Failures,
    double? P50Seconds,
    double? P99Seconds,
    int? ThreadPoolThreads,
    long? ThreadPoolQueueLength,
    double? CpuPercent,
    int? ProcessThreads);

/// <summary>Latency percentiles over every response of every run.</summary>
public sealed record Percentiles(double P50, double P75, double P90, double P99, double Max)
{
    /// <summary>p99.9, where the source measured it (load engine histograms).</summary>
    public double? P999 { get; init; }

    /// <summary>Mean latency, where the source measured it (load engine histograms, wrk).</summary>
    public double? Mean { get; init; }

    /// <summary>The p50 of each run on its own, in run order (where a suite keeps them): what a latency goal's interval is drawn from.</summary>
    public IReadOnlyList<double>? P50Runs { get; init; }

    public static Percentiles? Of(IReadOnlyList<double> values)
    {
        if (values.Count == 0)
        {
            return null;
        }

        var sorted = values.Order().ToArray();
        double At(double q) => sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(q * sorted.Length) - 1)];
        return new Percentiles(At(0.50), At(0.75), At(0.90), At(0.99), sorted[^1]);
    }
}

public sealed class ScenarioResult
{
    public required string Scenario { get; init; }

    /// <summary>The suite the row belongs to (<c>transfer</c>, <c>json</c>).</summary>
    public string Suite { get; init; } = "transfer";

    public required Dictionary<string, object> Parameters { get; init; }

    public int Runs { get; set; }

    public int Transfers { get; set; }

    public bool Verified { get; set; }

    public string? Error { get; set; }

    public Summary? BytesPerSecond { get; set; }

    public Summary? TimeToFirstByteSeconds { get; set; }

    /// <summary>Responses per second over each run (load scenarios).</summary>
    public Summary? RequestsPerSecond { get; set; }

    /// <summary>Time from request to last body byte, over every response (load scenarios).</summary>
    public Percentiles? LatencySeconds { get; set; }

    /// <summary>Median throughput over the raw TCP loopback probe's median (the ceiling).</summary>
    public double? EfficiencyVsTcp { get; set; }

    public SideCost? Server { get; set; }

    /// <summary>Per-second time series of a load scenario: the client's view merged with the server's samples.</summary>
    public List<SeriesPoint>? Series { get; set; }

    /// <summary>Every status code answered (load scenarios), and the failures counted apart.</summary>
    public Dictionary<string, long>? StatusCodes { get; set; }

    public long? SocketErrors { get; set; }

    /// <summary>
    /// Responses that were not what the scenario asked for (load scenarios): a status other than the expected
    /// one, or a body that did not match the expected bytes. Such responses count nowhere else as success.
    /// </summary>
    public long? BadResponses { get; set; }

    /// <summary>Load scenarios: latency of the first response of the first measured run (a fresh connection), as crank's "first request".</summary>
    public double? FirstRequestSeconds { get; set; }

    /// <summary>Load scenarios: the server's runtime counters over the measured runs (crank-style rows); null where the server exposes none.</summary>
    public ServerCounters? Counters { get; set; }

    public long? Timeouts { get; set; }

    public long? Errors { get; set; }

    public SideCost? Client { get; set; }

    /// <summary>
    /// Load scenarios (<c>freight load</c>): failed requests and bad responses by kind — <c>status</c>,
    /// <c>digest</c>, <c>length</c>, <c>reset</c>, <c>timeout</c>, <c>error</c> — with zero kinds left out.
    /// </summary>
    public Dictionary<string, long>? Failures { get; set; }

    /// <summary><c>freight load</c>: which side saturated, and the figures the verdict came from (docs/load.md, Blame).</summary>
    public LoadBlame? Blame { get; set; }

    public PublishedFigure? Published { get; init; }

    /// <summary>
    /// True, and the row marked not verified, when its scenario failed or completed no run: such a row
    /// carries no figure.
    /// </summary>
    public bool FailsWithoutFigures(int completedRuns)
    {
        if (Error is null && completedRuns > 0)
        {
            return false;
        }

        Verified = false;
        Error ??= "no run completed";
        return true;
    }
}

/// <summary>
/// The server's runtime counters over the measured part of a load scenario, the rows of the ASP.NET
/// benchmark tables (study 4). Rates are per second of the run; levels are the highest sampled; counts
/// are collections during the run. CPU % is of one core (200 = both cores of a 2-core machine). A peer
/// (nginx) has only what its process exposes through /proc: CPU and working set.
/// </summary>
public sealed record ServerCounters
{
    public double? CpuPercent { get; init; }

    public double? CpuPercentMax { get; init; }

    public long? WorkingSetBytes { get; init; }

    public long? GcHeapBytes { get; init; }

    public int? Gen0Collections { get; init; }

    public int? Gen1Collections { get; init; }

    public int? Gen2Collections { get; init; }

    public long? Gen0SizeBytes { get; init; }

    public long? Gen1SizeBytes { get; init; }

    public long? Gen2SizeBytes { get; init; }

    public long? LohSizeBytes { get; init; }

    public double? AllocationBytesPerSecond { get; init; }

    public int? ThreadPoolThreads { get; init; }

    public long? ThreadPoolQueueLength { get; init; }

    public double? WorkItemsPerSecond { get; init; }

    public double? LockContentionsPerSecond { get; init; }

    public double? ExceptionsPerSecond { get; init; }
}

/// <summary>
/// A ratio the study drew or a goal Freight set, measured in this run. <see cref="Value"/> is the ratio of the
/// two rows' figures (medians over the runs), and <see cref="GoalMet"/> compares it alone with the goal, as
/// before intervals existed. Where both rows kept one figure per run, <see cref="WithRuns"/> adds the 95 %
/// interval (<see cref="Estimate"/>, <see cref="Low"/>, <see cref="High"/>) and the goal's <see cref="Verdict"/>.
/// </summary>
public sealed record RatioResult(string Name, string Numerator, string Denominator, double? Value, double? Published = null, double? Goal = null, bool LowerIsBetter = false, string Unit = "×")
{
    public bool? GoalMet => Goal is null || Value is null ? null : LowerIsBetter ? Value <= Goal : Value >= Goal;

    /// <summary>The interval's point estimate: the geometric mean of the per-pair ratios when paired, else the ratio of medians.</summary>
    public double? Estimate { get; init; }

    /// <summary>The 95 % interval's lower bound.</summary>
    public double? Low { get; init; }

    /// <summary>The 95 % interval's upper bound.</summary>
    public double? High { get; init; }

    /// <summary>The interval's confidence level where there is one: 0.95, or 0.995 for a goal adaptive runs were added to.</summary>
    public double? Level { get; init; }

    /// <summary>Runs behind the interval: pairs when paired, else the smaller side's count.</summary>
    public int? Runs { get; init; }

    /// <summary><c>paired-log-t</c> or <c>bootstrap-median-ratio</c> (docs/bench.md, Intervals and verdicts).</summary>
    public string? Method { get; init; }

    /// <summary>The goal's direction: <c>&gt;=</c> (a speed) or <c>&lt;=</c> (a cost); null without a goal.</summary>
    public string? Comparison => Goal is null ? null : LowerIsBetter ? "<=" : ">=";

    /// <summary><c>met</c>, <c>missed</c> or <c>inconclusive</c> from the interval; null without a goal or without an interval.</summary>
    public string? Verdict => Interval is { } interval && Goal is { } goal
        ? RatioStatistics.Verdict(interval, goal, LowerIsBetter).ToString().ToLowerInvariant()
        : null;

    /// <summary>
    /// Goals with an interval: why their runs ended — <c>conclusive</c>, <c>time-cap</c> (--max-seconds spent, still
    /// inconclusive), <c>run-ceiling</c> (30 runs, still inconclusive) or <c>minimum-runs</c> (inconclusive, no runs added).
    /// </summary>
    public string? Stop { get; init; }

    /// <summary>The console's and report's reading of <see cref="Stop"/>: "conclusive after 7 runs", "cap reached, inconclusive after 12 runs".</summary>
    [JsonIgnore]
    public string? StopText => Stop switch
    {
        StopConclusive => $"conclusive after {Runs} runs",
        StopTimeCap => $"cap reached, inconclusive after {Runs} runs",
        StopCeiling => $"run ceiling reached, inconclusive after {Runs} runs",
        StopMinimumRuns => $"inconclusive after {Runs} runs, none added",
        _ => null,
    };

    public const string StopConclusive = "conclusive";
    public const string StopTimeCap = "time-cap";
    public const string StopCeiling = "run-ceiling";
    public const string StopMinimumRuns = "minimum-runs";

    /// <summary>The two rows the ratio was drawn from, when it has per-run figures (adaptive runs add runs to them).</summary>
    [JsonIgnore]
    public (ScenarioResult Numerator, ScenarioResult Denominator)? Sides { get; init; }

    /// <summary>The interval, when there is one.</summary>
    [JsonIgnore]
    public RatioInterval? Interval => Estimate is { } e && Low is { } low && High is { } high && Runs is { } runs && Method is { } method
        ? new RatioInterval(e, low, high, runs, method) { Level = Level ?? RatioStatistics.Level }
        : null;

    /// <summary>The per-run values the interval was drawn from (numerator, denominator), to draw it again at another level.</summary>
    [JsonIgnore]
    public (IReadOnlyList<double> Numerator, IReadOnlyList<double> Denominator)? RunValues { get; init; }

    /// <summary>
    /// This ratio with the 95 % interval drawn from the per-run values of its numerator and denominator
    /// (<see cref="Summary.Samples"/>); unchanged when either is missing or has fewer than two runs.
    /// </summary>
    public RatioResult WithRuns(IReadOnlyList<double>? numerator, IReadOnlyList<double>? denominator, double level = RatioStatistics.Level) =>
        RatioStatistics.Of(numerator, denominator, level) is { } interval
            ? this with
            {
                Estimate = interval.Estimate,
                Low = interval.Low,
                High = interval.High,
                Level = interval.Level,
                Runs = interval.Runs,
                Method = interval.Method,
                RunValues = (numerator!, denominator!),
            }
            : this;

    /// <summary>This ratio with its interval drawn again at <paramref name="level"/>; unchanged without per-run values.</summary>
    public RatioResult AtLevel(double level) =>
        RunValues is { } values && Level != level ? WithRuns(values.Numerator, values.Denominator, level) : this;

    /// <summary>
    /// <see cref="WithRuns(IReadOnlyList{double}?, IReadOnlyList{double}?)"/> from two rows' per-run <paramref name="figure"/>,
    /// remembering the rows as <see cref="Sides"/>; unchanged when either row is missing.
    /// </summary>
    public RatioResult WithRuns(ScenarioResult? numerator, ScenarioResult? denominator, Func<ScenarioResult, Summary?> figure)
    {
        ArgumentNullException.ThrowIfNull(figure);
        return numerator is null || denominator is null
            ? this
            : (this with { Sides = (numerator, denominator) }).WithRuns(figure(numerator)?.Samples, figure(denominator)?.Samples);
    }

    /// <summary>
    /// This goal with why its runs ended, from its verdict and the suite's <paramref name="stop"/>; unchanged without a
    /// verdict. When <paramref name="runsAdded"/>, a goal's interval is drawn at <see cref="RatioStatistics.AddedRunsLevel"/>
    /// first, the level the adaptive loop decided on (docs/bench.md, Adaptive runs).
    /// </summary>
    public RatioResult WithStop(Measure.AdaptiveStop stop, bool runsAdded = false) =>
        (runsAdded && Goal is not null ? AtLevel(RatioStatistics.AddedRunsLevel) : this).StopFromVerdict(stop);

    private RatioResult StopFromVerdict(Measure.AdaptiveStop stop) => Verdict switch
    {
        null => this,
        "met" or "missed" => this with { Stop = StopConclusive },
        _ => this with
        {
            Stop = stop switch
            {
                Measure.AdaptiveStop.TimeCap => StopTimeCap,
                Measure.AdaptiveStop.Ceiling => StopCeiling,
                _ => StopMinimumRuns,
            },
        },
    };
}

/// <summary>
/// One suite's A/A control and how its runs ended. <see cref="Control"/> is the ratio of the copy row over its
/// original (null when the suite has none or it has no interval, e.g. one run); <see cref="Unreliable"/> is true
/// when that interval excludes 1.0.
/// </summary>
/// <param name="Stop"><c>conclusive</c>, <c>time-cap</c>, <c>run-ceiling</c> or <c>off</c> (no runs added).</param>
/// <param name="Passes">Interleaved passes made: the minimum runs and any added.</param>
public sealed record SuiteCheck(string Suite, RatioResult? Control, string Stop, int Passes, double MaxSeconds)
{
    /// <summary>The A/A interval's multiplicative half-width, √(high/low) − 1: the smallest difference this run can tell.</summary>
    public double? NoiseFloor => Control?.Interval is { } interval ? AaControl.NoiseFloor(interval) : null;

    public bool Unreliable => Control?.Interval is { } interval && RatioStatistics.IsUnreliable(interval);

    /// <summary>What the console and the reports say when a suite's A/A failed.</summary>
    public const string UnreliableText = "UNRELIABLE RUN: an A/A control's interval excludes 1.0 (the same scenario measured twice differed), so this run's noise is larger than its intervals admit: do not trust its verdicts; run again, quieter";

    /// <summary>The suite's noise-floor line: its A/A ratio, interval and floor, and whether it held 1.0.</summary>
    public string NoiseText()
    {
        if (Control is null)
        {
            return $"{Suite}: no A/A control measured (its row or its original did not verify, or was filtered out)";
        }

        if (Control.Interval is not { } interval)
        {
            return $"{Suite}: A/A {Control.Numerator} / {Control.Denominator} {Figure(Control.Value)}×, no interval (fewer than 2 runs): no noise floor";
        }

        return string.Create(CultureInfo.InvariantCulture,
            $"{Suite}: noise floor ±{NoiseFloor * 100:0.0} % (A/A {Control.Numerator} / {Control.Denominator} {Figure(interval.Estimate)}× [{Figure(interval.Low)}–{Figure(interval.High)}], {interval.Runs} runs){(Unreliable ? " — UNRELIABLE: the interval excludes 1.0" : ", holds 1.0")}");
    }

    /// <summary>The suite's adaptive-runs line: why its runs ended.</summary>
    public string RunsText() => Stop switch
    {
        "conclusive" => FormattableString.Invariant($"{Suite}: every goal conclusive after {Passes} runs (cap {MaxSeconds:0} s)"),
        "time-cap" => FormattableString.Invariant($"{Suite}: time cap reached ({MaxSeconds:0} s of added runs), a goal still inconclusive after {Passes} runs"),
        "run-ceiling" => FormattableString.Invariant($"{Suite}: run ceiling reached, a goal still inconclusive after {Passes} runs"),
        _ => FormattableString.Invariant($"{Suite}: {Passes} runs, none added ({(MaxSeconds > 0 ? "the suite adds none" : "--max-seconds 0")})"),
    };

    private static string Figure(double? value) => value?.ToString("0.000", CultureInfo.InvariantCulture) ?? "n/a";

    /// <summary>
    /// The check of a suite whose runs ended with <paramref name="runs"/>: its A/A ratio (the one whose numerator is a
    /// copy row) taken from <paramref name="ratios"/>.
    /// </summary>
    public static SuiteCheck Of(string suite, IEnumerable<RatioResult> ratios, Measure.AdaptiveStop stop, int passes, double maxSeconds)
    {
        ArgumentNullException.ThrowIfNull(ratios);
        var control = ratios.FirstOrDefault(r => r.Sides is { } sides && AaControl.IsCopy(sides.Numerator.Scenario));
        return new SuiteCheck(suite, control, StopName(stop), passes, maxSeconds);
    }

    private static string StopName(Measure.AdaptiveStop stop) => stop switch
    {
        Measure.AdaptiveStop.Conclusive => "conclusive",
        Measure.AdaptiveStop.TimeCap => "time-cap",
        Measure.AdaptiveStop.Ceiling => "run-ceiling",
        _ => "off",
    };
}

/// <summary>
/// The verdict of <c>freight load</c>'s blame (<c>client-bound</c>, <c>server-bound</c>, <c>neither</c>,
/// <c>undetermined</c>), its reason, and its inputs: CPU in cores (1 = one whole core) over the run.
/// </summary>
public sealed record LoadBlame(
    string Verdict,
    string Reason,
    double ClientCpuCores,
    double? ServerCpuCores = null,
    int? ServerAllowedCpus = null,
    int? ServerProcessId = null,
    IReadOnlyList<double>? ThreadPoolQueueLengths = null,
    string? RuntimeCounters = null)
{
    /// <summary>The client's resident set at the start, beside <see cref="SideCost.WorkingSetBytesMax"/>: growth shows a body held in memory.</summary>
    public long? ClientWorkingSetBytesFirst { get; init; }

    /// <summary>The most threads the server's process had in a /proc sample.</summary>
    public int? ServerThreadsMax { get; init; }
}
