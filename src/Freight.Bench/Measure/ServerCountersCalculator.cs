using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Lab.Metrics;

namespace Freight.Bench.Measure;

/// <summary>
/// Turns a scenario's measured runs into its <see cref="ServerCounters"/> row (the ASP.NET benchmark tables'
/// server rows). Rates are the counters' increases summed over the runs, divided by the runs' summed wall
/// time, so the gaps between runs (warm-up, other variants) count nowhere. Levels are the highest value seen
/// in a run: in the samples taken inside one and in the snapshots taken at the end of each.
/// </summary>
public static class ServerCountersCalculator
{
    /// <summary>
    /// The counters of a Freight server over <paramref name="windows"/>. Only samples whose timestamp lies inside
    /// a window (ends included) count: the server is shared by variants run interleaved, so a sample outside
    /// belongs to another variant or to no run. A rate is null when a snapshot lacks its counter (-1, from a
    /// server that predates it) or the counter went backwards (the server restarted); a level is null when no
    /// value was seen; <see cref="ServerCounters.CpuPercentMax"/> is null when no sample fell inside a window.
    /// The first sample of a run covers the second before it, partly outside the run.
    /// </summary>
    /// <exception cref="ArgumentException">
    /// <paramref name="windows"/> is empty (no run was measured: report no counters rather than a row of nulls),
    /// or a window ends before it starts.
    /// </exception>
    public static ServerCounters Compute(IReadOnlyList<MeasuredWindow> windows, IReadOnlyCollection<RuntimeSample> samples)
    {
        ArgumentNullException.ThrowIfNull(windows);
        ArgumentNullException.ThrowIfNull(samples);
        var wallSeconds = WallSeconds(windows);

        var inside = new List<RuntimeSample>();
        foreach (var sample in samples)
        {
            if (InAnyWindow(windows, sample.Timestamp))
            {
                inside.Add(sample);
            }
        }

        double? cpuPercentMax = null;
        foreach (var sample in inside)
        {
            cpuPercentMax = cpuPercentMax is { } max ? Math.Max(max, sample.CpuPercent) : sample.CpuPercent;
        }

        return new ServerCounters
        {
            CpuPercent = 100 * Rate(windows, wallSeconds, static s => s.CpuSeconds),
            CpuPercentMax = cpuPercentMax,
            WorkingSetBytes = Level(windows, inside, static s => s.WorkingSetBytes, static s => s.WorkingSetBytes),
            GcHeapBytes = Level(windows, inside, static s => s.GcHeapBytes, static s => s.GcHeapBytes),
            Gen0Collections = Count(windows, static s => s.Gen0Collections),
            Gen1Collections = Count(windows, static s => s.Gen1Collections),
            Gen2Collections = Count(windows, static s => s.Gen2Collections),
            Gen0SizeBytes = Level(windows, inside, static s => s.Gen0SizeBytes, static s => s.Gen0SizeBytes),
            Gen1SizeBytes = Level(windows, inside, static s => s.Gen1SizeBytes, static s => s.Gen1SizeBytes),
            Gen2SizeBytes = Level(windows, inside, static s => s.Gen2SizeBytes, static s => s.Gen2SizeBytes),
            LohSizeBytes = Level(windows, inside, static s => s.LohSizeBytes, static s => s.LohSizeBytes),
            AllocationBytesPerSecond = Rate(windows, wallSeconds, static s => s.AllocatedBytes),
            ThreadPoolThreads = (int?)Level(windows, inside, static s => s.ThreadPoolThreads, static s => s.ThreadPoolThreads),
            ThreadPoolQueueLength = Level(windows, inside, static s => s.ThreadPoolQueueLength, static s => s.ThreadPoolQueueLength),
            WorkItemsPerSecond = Rate(windows, wallSeconds, static s => s.CompletedWorkItems),
            LockContentionsPerSecond = Rate(windows, wallSeconds, static s => s.LockContentions),
            ExceptionsPerSecond = Rate(windows, wallSeconds, static s => s.ExceptionCount),
        };
    }

    /// <summary>
    /// The counters of a peer process (nginx) over its runs, each bounded by two <see cref="ProcessStatSnapshot"/>s:
    /// CPU % (of one core) over the summed wall time between the snapshots, and the highest resident set at the end
    /// of a run. Everything else is null: <c>/proc</c> knows nothing of a GC or a thread pool.
    /// </summary>
    /// <exception cref="ArgumentException">
    /// <paramref name="windows"/> is empty, or a window's snapshots are of two processes or out of order.
    /// </exception>
    public static ServerCounters Compute(IReadOnlyList<(ProcessStatSnapshot Before, ProcessStatSnapshot After)> windows)
    {
        ArgumentNullException.ThrowIfNull(windows);
        if (windows.Count == 0)
        {
            throw new ArgumentException("At least one measured window is needed.", nameof(windows));
        }

        double cpuSeconds = 0;
        double wallSeconds = 0;
        long workingSet = 0;
        foreach (var (before, after) in windows)
        {
            ArgumentNullException.ThrowIfNull(before, nameof(windows));
            ArgumentNullException.ThrowIfNull(after, nameof(windows));
            if (before.ProcessId != after.ProcessId || before.StartTimeTicks != after.StartTimeTicks)
            {
                throw new ArgumentException("A window's two snapshots are of different processes.", nameof(windows));
            }

            if (after.Timestamp < before.Timestamp)
            {
                throw new ArgumentException("A window's After snapshot was taken before its Before snapshot.", nameof(windows));
            }

            cpuSeconds += after.CpuSeconds - before.CpuSeconds;
            wallSeconds += (after.Timestamp - before.Timestamp).TotalSeconds;
            workingSet = Math.Max(workingSet, after.WorkingSetBytes);
        }

        return new ServerCounters
        {
            CpuPercent = wallSeconds > 0 ? 100 * cpuSeconds / wallSeconds : null,
            WorkingSetBytes = workingSet,
        };
    }

    private static double WallSeconds(IReadOnlyList<MeasuredWindow> windows)
    {
        if (windows.Count == 0)
        {
            throw new ArgumentException("At least one measured window is needed.", nameof(windows));
        }

        double seconds = 0;
        foreach (var window in windows)
        {
            ArgumentNullException.ThrowIfNull(window, nameof(windows));
            if (window.EndedAt < window.StartedAt)
            {
                throw new ArgumentException("A window ends before it starts.", nameof(windows));
            }

            seconds += window.Seconds;
        }

        return seconds;
    }

    private static bool InAnyWindow(IReadOnlyList<MeasuredWindow> windows, DateTimeOffset timestamp)
    {
        foreach (var window in windows)
        {
            if (window.Contains(timestamp))
            {
                return true;
            }
        }

        return false;
    }

    // Increase of a cumulative counter summed over the windows; null when a snapshot lacks it or it went backwards.
    private static double? Delta(IReadOnlyList<MeasuredWindow> windows, Func<RuntimeSnapshot, double> counter)
    {
        double sum = 0;
        foreach (var window in windows)
        {
            var before = counter(window.Before);
            var after = counter(window.After);
            if (before < 0 || after < before)
            {
                return null;
            }

            sum += after - before;
        }

        return sum;
    }

    private static double? Rate(IReadOnlyList<MeasuredWindow> windows, double wallSeconds, Func<RuntimeSnapshot, double> counter) =>
        wallSeconds > 0 ? Delta(windows, counter) / wallSeconds : null;

    private static int? Count(IReadOnlyList<MeasuredWindow> windows, Func<RuntimeSnapshot, double> counter) =>
        (int?)Delta(windows, counter);

    // Highest non-negative value (-1 is "no value") in the in-window samples and the windows' After snapshots.
    private static long? Level(
        IReadOnlyList<MeasuredWindow> windows,
        List<RuntimeSample> inside,
        Func<RuntimeSnapshot, long> ofSnapshot,
        Func<RuntimeSample, long> ofSample)
    {
        long? max = null;
        foreach (var window in windows)
        {
            max = Max(max, ofSnapshot(window.After));
        }

        foreach (var sample in inside)
        {
            max = Max(max, ofSample(sample));
        }

        return max;
    }

    private static long? Max(long? max, long value) => value < 0 ? max : Math.Max(max ?? 0, value);
}
