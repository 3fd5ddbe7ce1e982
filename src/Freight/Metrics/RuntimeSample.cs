namespace Freight.Metrics;

/// <summary>
/// One reading of <see cref="RuntimeSampler"/>. <see cref="Sequence"/> numbers the samples from 1 without
/// gaps, so a poller that merges by sequence can tell whether it has missed any. Counters named
/// "Collections", <see cref="CpuSeconds"/>, <see cref="LockContentions"/>, <see cref="AllocatedBytes"/>,
/// <see cref="ThreadPoolCompletedWorkItems"/> and <see cref="DiskWriteBytes"/> are cumulative since the
/// process started; the rest are levels at <see cref="Timestamp"/>. -1 where the platform has no value.
/// </summary>
public sealed record RuntimeSample(
    long Sequence,
    DateTimeOffset Timestamp,
    double ElapsedSeconds,
    double CpuSeconds,
    double CpuPercent,
    int ThreadPoolThreads,
    long ThreadPoolQueueLength,
    long ThreadPoolCompletedWorkItems,
    int ProcessThreads,
    long WorkingSetBytes,
    long GcHeapBytes,
    int Gen0Collections,
    int Gen1Collections,
    int Gen2Collections,
    long LockContentions,
    long AllocatedBytes,
    long DiskWriteBytes);
