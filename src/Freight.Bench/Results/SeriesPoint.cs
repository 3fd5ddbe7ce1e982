namespace Freight.Bench.Results;

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
