using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>
/// The rows of <c>freight compare</c>, in crank's order: the server's counters first, then the load figures, then
/// the transfer costs. Summaries contribute their median. Rows with no value in any column are skipped, so a
/// transfer table and a load table each show only what their scenario measured.
/// </summary>
public static class CompareMetrics
{
    private const double MiB = 1024 * 1024;
    private const double Milliseconds = 1000;

    public static readonly IReadOnlyList<CompareMetric> All =
    [
        new("CPU usage (%)", CompareDirection.None, r => r.Counters?.CpuPercent),
        new("CPU max (%)", CompareDirection.None, r => r.Counters?.CpuPercentMax),

        // freight load --through-proxy: the proxy in front of the server (nginx), measured apart; its rows only where one was.
        new("proxy CPU usage (%)", CompareDirection.None, r => r.Blame?.Proxy?.CpuCores * 100),

        // Transfer rows carry no counters but their server side saw the same levels: show them in the same rows.
        new("working set (MiB)", CompareDirection.LowerIsBetter, r => (r.Counters?.WorkingSetBytes ?? r.Server?.WorkingSetBytesMax) / MiB, OneRunFloor: OneRunNoise.Memory),
        // No A/A pairs measured a proxy's resident set, and the server's floor follows its GC heap, which nginx has not: never marked.
        new("proxy working set (MiB)", CompareDirection.LowerIsBetter, r => r.Blame?.Proxy?.WorkingSetBytesMax / MiB),
        new("GC heap (MiB)", CompareDirection.LowerIsBetter, r => r.Counters?.GcHeapBytes / MiB, OneRunFloor: OneRunNoise.Heap),
        new("gen 0 GCs", CompareDirection.LowerIsBetter, r => r.Counters?.Gen0Collections ?? r.Server?.Gen0, Integer: true, OneRunFloor: OneRunNoise.Collections),
        new("gen 1 GCs", CompareDirection.LowerIsBetter, r => r.Counters?.Gen1Collections ?? r.Server?.Gen1, Integer: true, OneRunFloor: OneRunNoise.Collections),
        new("gen 2 GCs", CompareDirection.LowerIsBetter, r => r.Counters?.Gen2Collections ?? r.Server?.Gen2, Integer: true, OneRunFloor: OneRunNoise.Collections),

        // Gen 0's size is the budget the GC chose, not memory kept: no better direction.
        new("gen 0 size (MiB)", CompareDirection.None, r => r.Counters?.Gen0SizeBytes / MiB),
        new("gen 1 size (MiB)", CompareDirection.LowerIsBetter, r => r.Counters?.Gen1SizeBytes / MiB),
        new("gen 2 size (MiB)", CompareDirection.LowerIsBetter, r => r.Counters?.Gen2SizeBytes / MiB),
        new("LOH size (MiB)", CompareDirection.LowerIsBetter, r => r.Counters?.LohSizeBytes / MiB),
        new("allocation rate (MiB/s)", CompareDirection.None, r => r.Counters?.AllocationBytesPerSecond / MiB),
        new("thread pool threads", CompareDirection.None, r => r.Counters?.ThreadPoolThreads ?? r.Server?.ThreadPoolThreadsMax, Integer: true),
        new("lock contention (/s)", CompareDirection.LowerIsBetter, r => r.Counters?.LockContentionsPerSecond),
        new("thread pool queue length", CompareDirection.LowerIsBetter, r => r.Counters?.ThreadPoolQueueLength, Integer: true),
        new("work items (/s)", CompareDirection.None, r => r.Counters?.WorkItemsPerSecond),
        new("exceptions (/s)", CompareDirection.LowerIsBetter, r => r.Counters?.ExceptionsPerSecond),

        new("requests/s", CompareDirection.HigherIsBetter, r => r.RequestsPerSecond?.Median, OneRunFloor: OneRunNoise.Rate, Seconds: Completions, Runs: r => r.RequestsPerSecond?.Samples),
        new("throughput (MiB/s)", CompareDirection.HigherIsBetter, r => r.BytesPerSecond?.Median / MiB, OneRunFloor: OneRunNoise.Rate, Seconds: MiBPerSecond, Runs: r => r.BytesPerSecond?.Samples),
        new("mean latency (ms)", CompareDirection.LowerIsBetter, r => r.LatencySeconds?.Mean * Milliseconds, OneRunFloor: OneRunNoise.Latency),
        new("latency p50 (ms)", CompareDirection.LowerIsBetter, r => r.LatencySeconds?.P50 * Milliseconds, OneRunFloor: OneRunNoise.Latency, Seconds: r => r.Series?.Select(p => p.P50Seconds), Runs: r => r.LatencySeconds?.P50Runs),
        new("latency p75 (ms)", CompareDirection.LowerIsBetter, r => r.LatencySeconds?.P75 * Milliseconds, OneRunFloor: OneRunNoise.Latency),
        new("latency p90 (ms)", CompareDirection.LowerIsBetter, r => r.LatencySeconds?.P90 * Milliseconds, OneRunFloor: OneRunNoise.Latency),
        new("latency p99 (ms)", CompareDirection.LowerIsBetter, r => r.LatencySeconds?.P99 * Milliseconds, OneRunFloor: OneRunNoise.Latency, Seconds: r => r.Series?.Select(p => p.P99Seconds), Runs: P99Runs),
        new("latency p99.9 (ms)", CompareDirection.LowerIsBetter, r => r.LatencySeconds?.P999 * Milliseconds, OneRunFloor: OneRunNoise.Latency),
        new("latency max (ms)", CompareDirection.LowerIsBetter, r => r.LatencySeconds?.Max * Milliseconds, OneRunFloor: OneRunNoise.Latency),
        new("bad responses", CompareDirection.LowerIsBetter, r => r.BadResponses, Integer: true, OneRunFloor: OneRunNoise.AnyChange),
        new("socket errors", CompareDirection.LowerIsBetter, r => r.SocketErrors, Integer: true, OneRunFloor: OneRunNoise.AnyChange),
        new("first request (ms)", CompareDirection.LowerIsBetter, r => r.FirstRequestSeconds * Milliseconds),
        new("TTFB (ms)", CompareDirection.LowerIsBetter, r => r.TimeToFirstByteSeconds?.Median * Milliseconds),
        new("server CPU (s/GiB)", CompareDirection.LowerIsBetter, r => r.Server?.CpuSecondsPerGiB, OneRunFloor: OneRunNoise.ServerCost, Runs: r => r.Server?.CpuSecondsPerGiBSamples),
        new("proxy CPU (s/GiB)", CompareDirection.LowerIsBetter, r => r.Blame?.Proxy?.CpuSecondsPerGiB, OneRunFloor: OneRunNoise.ProxyCost, Runs: r => r.Blame?.Proxy?.CpuSecondsPerGiBSamples),
        new("client CPU (s/GiB)", CompareDirection.LowerIsBetter, r => r.Client?.CpuSecondsPerGiB, OneRunFloor: OneRunNoise.ClientCost, Runs: r => r.Client?.CpuSecondsPerGiBSamples),
        new("server allocated per transfer (KiB)", CompareDirection.LowerIsBetter, r => r.Server?.AllocatedBytesPerTransfer / 1024),
    ];

    /// <summary>
    /// Each run's p99 when every run has at least <see cref="TailResponses"/> responses on average, else none (the figure is
    /// then judged as single runs' are): a p99 over fewer rests on fewer than ten responses beyond it, and is little more
    /// than the run's slowest one. A/A, 5 runs a side of a 25 MB JSON GET (~54 responses a run): p99 -13 %, marked from an
    /// interval over runs that excluded 1.
    /// p50 has no such guard, at any count. A run's p50 is its sample median, which half its responses must move, where one
    /// response moves a p99 of 54 (the same A/A pair: p50 -6 %, ≈ [0.833–1.134×] from its runs). The interval itself is
    /// not what fails: simulated A/A (2,000 draws, 5 runs a side of 1 to 1,000 log-normal responses each, with and without
    /// 5 % of them 5× slower, through RatioStatistics.Unpaired) held 1 in 96–97 % of draws for p50 and p99 alike, so the
    /// p99 guard is about what the figure is (one response, open to whatever befell it while that file was measured), and
    /// a median is not one response unless the run had one or two. Then (-n 1 of a GiB) the p50 is the same measurement
    /// as the run's requests/s, which is judged from its runs unguarded: a guard would leave p50 ≈ beside a requests/s
    /// marked from the same responses.
    /// </summary>
    private static IReadOnlyList<double>? P99Runs(ScenarioResult row) =>
        row.Runs > 0 && row.Transfers / row.Runs >= TailResponses ? row.LatencySeconds?.P99Runs : null;

    private const int TailResponses = 1000;

    /// <summary>Responses completed in each second of a single run.</summary>
    private static IEnumerable<double?>? Completions(ScenarioResult row) => row.Series?.Select(p => (double?)p.Completions);

    /// <summary>
    /// A single run's MiB/s in each second: the series counts responses, not bytes, so each second's completions times the
    /// run's bytes a response (a run's requests are alike: its MiB/s and its requests/s keep one ratio).
    /// </summary>
    private static IEnumerable<double?>? MiBPerSecond(ScenarioResult row) =>
        row.BytesPerSecond?.Median / row.RequestsPerSecond?.Median is { } perResponse && double.IsFinite(perResponse)
            ? row.Series?.Select(p => (double?)(p.Completions * perResponse / MiB))
            : null;
}
