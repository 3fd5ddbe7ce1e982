using System.Globalization;
using Freight.Bench.Load.Engine;
using Freight.Bench.Measure;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites;

/// <summary>What a suite's transfer rows report besides rates, each side's CPU per GiB and the server's working set.</summary>
[Flags]
internal enum TransferFigures
{
    None = 0,

    /// <summary>
    /// Each run's CPU s/GiB on both sides and the server's instructions per byte (total and per run): what a cost
    /// goal's interval is drawn from (the transfer and files suites).
    /// </summary>
    PerRunCosts = 1,

    /// <summary>The server's allocations per transfer: Freight's own process only, never a peer's (which reports none).</summary>
    ServerAllocations = 2,

    /// <summary>The server's collections, thread pool high-water mark and disk writes (the transfer suite's lab server).</summary>
    RuntimeCounters = 4,
}

/// <summary>
/// The one path from a scenario's measured runs to its result row. Every suite starts its row with <see cref="Row"/>
/// (id, suite, parameters, published figure, verified unless it failed) and a row that failed or completed no run
/// carries no figure (<see cref="ScenarioResult.FailsWithoutFigures"/>); the transfer, files and tus suites' runs
/// become figures through <see cref="AddTransfers"/>; load rows (static, threads, <c>freight load</c>) take their
/// latency percentiles and status counts from <see cref="Latency"/> and <see cref="StatusCodes"/>. A suite adds only
/// what is its own: its parameters and its extra figures.
/// </summary>
internal static class ScenarioSummary
{
    private const double GiB = 1024d * 1024 * 1024;

    /// <summary>A row without figures yet: verified unless <paramref name="failure"/> says why not.</summary>
    public static ScenarioResult Row(string scenario, string suite, ScenarioParameters parameters, string? failure, PublishedFigure? published = null) => new()
    {
        Scenario = scenario,
        Suite = suite,
        Parameters = parameters,
        Published = published,
        Verified = failure is null,
        Error = failure,
    };

    /// <summary>
    /// Adds the figures of <paramref name="samples"/> (one per measured run, in run order) to <paramref name="row"/>:
    /// runs, transfers, bytes/s per run (kept for intervals), the median time to first byte, the client's CPU per GiB
    /// and allocations per transfer, and, when every run has the server's snapshots, the server's CPU per GiB (the
    /// store's share apart where it was measured), working set and what <paramref name="figures"/> asks for. False,
    /// and the row marked not verified, when it failed or completed no run: its figures would not be of verified bytes.
    /// </summary>
    public static bool AddTransfers(ScenarioResult row, IReadOnlyList<RunSample> samples, TransferFigures figures)
    {
        ArgumentNullException.ThrowIfNull(row);
        ArgumentNullException.ThrowIfNull(samples);
        if (row.FailsWithoutFigures(samples.Count))
        {
            return false;
        }

        var perRunCosts = figures.HasFlag(TransferFigures.PerRunCosts);
        var bytes = samples.Sum(s => s.Bytes);
        row.Runs = samples.Count;
        row.Transfers = samples.Sum(s => s.Transfers);
        row.BytesPerSecond = Summary.OfRuns(samples.Select(s => s.BytesPerSecond).ToList());
        row.TimeToFirstByteSeconds = Summary.Of(samples.Where(s => s.MedianTimeToFirstByteSeconds.HasValue).Select(s => s.MedianTimeToFirstByteSeconds!.Value).ToList());
        row.Client = new SideCost(samples.Sum(s => s.ClientCpuSeconds) / (bytes / GiB), AllocatedBytesPerTransfer: samples.Sum(s => (double)s.ClientAllocatedBytes) / row.Transfers)
        {
            CpuSecondsPerGiBSamples = perRunCosts ? [.. samples.Select(s => s.ClientCpuSecondsPerGiB)] : null,
        };

        // The probe and a peer without /proc have no server snapshots: no server side, rather than one of some runs.
        if (!samples.All(s => s.ServerBefore is not null && s.ServerAfter is not null))
        {
            return true;
        }

        var counters = figures.HasFlag(TransferFigures.RuntimeCounters);
        var instructions = perRunCosts ? RunSample.ServerInstructionsPerByteOf(samples) : (null, null);
        row.Server = new SideCost(
            samples.Sum(s => s.ServerAfter!.CpuSeconds - s.ServerBefore!.CpuSeconds) / (bytes / GiB),
            AllocatedBytesPerTransfer: figures.HasFlag(TransferFigures.ServerAllocations)
                ? samples.Sum(s => (double)(s.ServerAfter!.AllocatedBytes - s.ServerBefore!.AllocatedBytes)) / row.Transfers
                : null,
            Gen0: counters ? samples.Sum(s => s.ServerAfter!.Gen0Collections - s.ServerBefore!.Gen0Collections) : null,
            Gen1: counters ? samples.Sum(s => s.ServerAfter!.Gen1Collections - s.ServerBefore!.Gen1Collections) : null,
            Gen2: counters ? samples.Sum(s => s.ServerAfter!.Gen2Collections - s.ServerBefore!.Gen2Collections) : null,
            ThreadPoolThreadsMax: counters ? samples.Max(s => s.ServerAfter!.ThreadPoolThreads) : null,
            DiskBytesWritten: counters && samples.All(s => s.ServerAfter!.DiskWriteBytes >= 0) ? samples.Sum(s => s.ServerAfter!.DiskWriteBytes - s.ServerBefore!.DiskWriteBytes) : null,
            WorkingSetBytesMax: samples.Max(s => s.ServerAfter!.WorkingSetBytes),
            StoreCpuSecondsPerGiB: samples.All(s => s.StoreCpuSeconds is not null) ? samples.Sum(s => s.StoreCpuSeconds!.Value) / (bytes / GiB) : null)
        {
            CpuSecondsPerGiBSamples = perRunCosts ? [.. samples.Select(s => s.ServerCpuSecondsPerGiB!.Value)] : null,
            InstructionsPerByte = instructions.Total,
            InstructionsPerByteSamples = instructions.PerRun,
        };
        return true;
    }

    /// <summary>The load engine's latency figures (its histogram's, in seconds) as the row's percentiles, p99.9 and mean.</summary>
    public static Percentiles Latency(LatencySummary latency) =>
        new(latency.P50Seconds, latency.P75Seconds, latency.P90Seconds, latency.P99Seconds, latency.MaxSeconds)
        {
            P999 = latency.P999Seconds,
            Mean = latency.MeanSeconds,
        };

    /// <summary>Responses by status code, summed over runs, keyed by the code's text (the order codes were first seen).</summary>
    public static Dictionary<string, long> StatusCodes(IEnumerable<KeyValuePair<int, long>> counts) =>
        counts.GroupBy(pair => pair.Key.ToString(CultureInfo.InvariantCulture))
            .ToDictionary(group => group.Key, group => group.Sum(pair => pair.Value));
}
