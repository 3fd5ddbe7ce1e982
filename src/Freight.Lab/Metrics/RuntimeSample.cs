namespace Freight.Lab.Metrics;

/// <summary>
/// One reading of <see cref="RuntimeSampler"/>. <see cref="Sequence"/> numbers the samples from 1 without
/// gaps, so a poller that merges by sequence can tell whether it has missed any. Counters named
/// "Collections", <see cref="CpuSeconds"/>, <see cref="LockContentions"/>, <see cref="AllocatedBytes"/>,
/// <see cref="ThreadPoolCompletedWorkItems"/> and <see cref="DiskWriteBytes"/> are cumulative since the
/// process started, <see cref="ExceptionCount"/> since <see cref="ExceptionCounter.Install"/>; the rest are
/// levels at <see cref="Timestamp"/> (the generation sizes as the last GC left them, see <see cref="RuntimeSnapshot"/>).
/// -1 where the platform has no value, and for the parameters after <see cref="DiskWriteBytes"/> when the
/// server that answered predates them.
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
    long DiskWriteBytes,
    long ExceptionCount = -1,
    long Gen0SizeBytes = -1,
    long Gen1SizeBytes = -1,
    long Gen2SizeBytes = -1,
    long LohSizeBytes = -1,
    long PohSizeBytes = -1);
