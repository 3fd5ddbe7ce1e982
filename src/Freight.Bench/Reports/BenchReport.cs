using System.Text.Json;
using System.Text.Json.Serialization;
using Freight.Bench.Scenarios;
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

    public bool Verified { get; set; }

    public List<ScenarioResult> Results { get; init; } = [];

    public List<RatioResult> Ratios { get; init; } = [];
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

/// <summary>How the run was set up; <paramref name="Store"/> is the files suite's store (<c>fs</c> or <c>s3</c>), <paramref name="S3Server"/> the S3 server behind it.</summary>
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
    string? S3Server = null);

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
    double? StoreCpuSecondsPerGiB = null);

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

    /// <summary>The interval's confidence level (0.95) where there is one.</summary>
    public double? Level => Low is null ? null : RatioStatistics.Level;

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

    /// <summary>The interval, when there is one.</summary>
    [JsonIgnore]
    public RatioInterval? Interval => Estimate is { } e && Low is { } low && High is { } high && Runs is { } runs && Method is { } method
        ? new RatioInterval(e, low, high, runs, method)
        : null;

    /// <summary>
    /// This ratio with the 95 % interval drawn from the per-run values of its numerator and denominator
    /// (<see cref="Summary.Samples"/>); unchanged when either is missing or has fewer than two runs.
    /// </summary>
    public RatioResult WithRuns(IReadOnlyList<double>? numerator, IReadOnlyList<double>? denominator) =>
        RatioStatistics.Of(numerator, denominator) is { } interval
            ? this with { Estimate = interval.Estimate, Low = interval.Low, High = interval.High, Runs = interval.Runs, Method = interval.Method }
            : this;
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
