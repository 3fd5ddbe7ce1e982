using System.Globalization;

namespace Freight.Lab.Metrics;

/// <summary>
/// Cumulative process counters read in-process at one instant. The bench takes one before and one
/// after a run and reports the difference, so it can say what the server spent per GiB moved.
/// </summary>
/// <remarks>
/// Cumulative: <see cref="CpuSeconds"/>, <see cref="AllocatedBytes"/>, the "Collections" counts,
/// <see cref="LockContentions"/>, <see cref="DiskWriteBytes"/>, <see cref="ExceptionCount"/> (since
/// <see cref="ExceptionCounter.Install"/>) and <see cref="CompletedWorkItems"/>. The rest are levels. The
/// generation sizes are what the last GC left in each (<see cref="GCGenerationInfo.SizeAfterBytes"/>, what
/// dotnet-counters shows as gen-N-size): they change only when a GC runs, and are 0 before the first.
/// The parameters after <see cref="DiskWriteBytes"/> default to -1 ("no value"), which is what a reader
/// gets from a server that predates them.
/// </remarks>
public sealed record RuntimeSnapshot(
    double CpuSeconds,
    long AllocatedBytes,
    int Gen0Collections,
    int Gen1Collections,
    int Gen2Collections,
    long GcHeapBytes,
    long WorkingSetBytes,
    int ThreadPoolThreads,
    long ThreadPoolQueueLength,
    long LockContentions,
    int ProcessThreads,
    long DiskWriteBytes,
    long ExceptionCount = -1,
    long CompletedWorkItems = -1,
    long Gen0SizeBytes = -1,
    long Gen1SizeBytes = -1,
    long Gen2SizeBytes = -1,
    long LohSizeBytes = -1,
    long PohSizeBytes = -1)
{
    /// <summary>Reads the counters of the current process.</summary>
    public static RuntimeSnapshot Capture()
    {
        ExceptionCounter.Install();
        var (threads, diskWrites) = ReadProcFs();
        var generations = GC.GetGCMemoryInfo().GenerationInfo;
        return new RuntimeSnapshot(
            Environment.CpuUsage.TotalTime.TotalSeconds,
            GC.GetTotalAllocatedBytes(precise: false),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2),
            GC.GetTotalMemory(forceFullCollection: false),
            Environment.WorkingSet,
            ThreadPool.ThreadCount,
            ThreadPool.PendingWorkItemCount,
            Monitor.LockContentionCount,
            threads,
            diskWrites,
            ExceptionCounter.Count,
            ThreadPool.CompletedWorkItemCount,
            SizeAfter(generations, 0),
            SizeAfter(generations, 1),
            SizeAfter(generations, 2),
            SizeAfter(generations, 3),
            SizeAfter(generations, 4));
    }

    // Generations 0-2, then the large and pinned object heaps (the runtime's order); -1 should a runtime report fewer.
    private static long SizeAfter(ReadOnlySpan<GCGenerationInfo> generations, int index) =>
        index < generations.Length ? generations[index].SizeAfterBytes : -1;

    // Linux only: thread count from /proc/self/status and bytes this process caused to be written to
    // storage from /proc/self/io; -1 where unavailable.
    private static (int Threads, long DiskWriteBytes) ReadProcFs()
    {
        var threads = -1;
        long diskWrites = -1;
        try
        {
            foreach (var line in File.ReadLines("/proc/self/status"))
            {
                if (line.StartsWith("Threads:", StringComparison.Ordinal))
                {
                    threads = int.Parse(line.AsSpan(8).Trim(), CultureInfo.InvariantCulture);
                    break;
                }
            }

            foreach (var line in File.ReadLines("/proc/self/io"))
            {
                if (line.StartsWith("write_bytes:", StringComparison.Ordinal))
                {
                    diskWrites = long.Parse(line.AsSpan(12).Trim(), CultureInfo.InvariantCulture);
                    break;
                }
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }

        return (threads, diskWrites);
    }
}
