using System.Globalization;

namespace Freight.Metrics;

/// <summary>
/// Cumulative process counters read in-process at one instant. The bench takes one before and one
/// after a run and reports the difference, so it can say what the server spent per GiB moved.
/// </summary>
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
    long DiskWriteBytes)
{
    /// <summary>Reads the counters of the current process.</summary>
    public static RuntimeSnapshot Capture()
    {
        var (threads, diskWrites) = ReadProcFs();
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
            diskWrites);
    }

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
