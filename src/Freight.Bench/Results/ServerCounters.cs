namespace Freight.Bench.Results;

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

    /// <summary>Bytes allocated over the run (<c>freight load</c>: from its runtime counters, over <see cref="RuntimeSampledSeconds"/> when set).</summary>
    public long? AllocatedBytes { get; init; }

    public double? AllocationBytesPerSecond { get; init; }

    /// <summary>
    /// <c>freight load</c>: the seconds of the run its runtime counters cover when they cover only part of it (the
    /// server stopped sending them, a Ctrl+C); the counts and rates are of those seconds. Null: all of the run.
    /// </summary>
    public double? RuntimeSampledSeconds { get; init; }

    public int? ThreadPoolThreads { get; init; }

    public long? ThreadPoolQueueLength { get; init; }

    public double? WorkItemsPerSecond { get; init; }

    public double? LockContentionsPerSecond { get; init; }

    public double? ExceptionsPerSecond { get; init; }
}
