using Freight.Bench.Measure;
using Freight.Lab.Metrics;

namespace Freight.Bench.Tests.Measure;

/// <summary>Hand-built snapshots and samples; every expected figure is worked out in the test.</summary>
public sealed class ServerCountersCalculatorTests
{
    private static readonly DateTimeOffset T0 = new(2025, 1, 1, 12, 0, 0, TimeSpan.Zero);

    [Fact]
    public void Compute_OneWindow_RatesAreDeltasOverWallTime()
    {
        // 4 s window: 2 CPU-seconds, 400 MB allocated, 8,000 work items, 20 contentions, 12 exceptions.
        var before = Snapshot(cpu: 10, allocated: 1_000_000_000, workItems: 50_000, contentions: 100, exceptions: 3, gen0: 10, gen1: 4, gen2: 1);
        var after = Snapshot(cpu: 12, allocated: 1_400_000_000, workItems: 58_000, contentions: 120, exceptions: 15, gen0: 17, gen1: 6, gen2: 1);

        var counters = ServerCountersCalculator.Compute([new MeasuredWindow(before, after, T0, T0.AddSeconds(4))], []);

        Assert.Equal(50, counters.CpuPercent!.Value, 9);                  // 100 × 2 / 4
        Assert.Equal(100_000_000, counters.AllocationBytesPerSecond!.Value, 6); // 400 MB / 4 s
        Assert.Equal(2_000, counters.WorkItemsPerSecond!.Value, 9);       // 8,000 / 4
        Assert.Equal(5, counters.LockContentionsPerSecond!.Value, 9);     // 20 / 4
        Assert.Equal(3, counters.ExceptionsPerSecond!.Value, 9);          // 12 / 4
        Assert.Equal(7, counters.Gen0Collections);
        Assert.Equal(2, counters.Gen1Collections);
        Assert.Equal(0, counters.Gen2Collections);
    }

    [Fact]
    public void Compute_TwoWindows_SumsDeltasAndWallTimeLeavingTheGapOut()
    {
        // Window 1: 2 s, 1 CPU-second, 10 exceptions. Window 2 starts 60 s later: 3 s, 4 CPU-seconds, 5 exceptions.
        // Whatever happened in the gap (another variant) is in neither delta.
        var first = new MeasuredWindow(
            Snapshot(cpu: 100, allocated: 0, exceptions: 0, gen0: 1),
            Snapshot(cpu: 101, allocated: 2_000, exceptions: 10, gen0: 3),
            T0, T0.AddSeconds(2));
        var second = new MeasuredWindow(
            Snapshot(cpu: 500, allocated: 90_000, exceptions: 1_000, gen0: 40),
            Snapshot(cpu: 504, allocated: 93_000, exceptions: 1_005, gen0: 41),
            T0.AddSeconds(62), T0.AddSeconds(65));

        var counters = ServerCountersCalculator.Compute([first, second], []);

        Assert.Equal(100.0 * (1 + 4) / (2 + 3), counters.CpuPercent!.Value, 9);    // 100 %
        Assert.Equal((2_000 + 3_000) / 5.0, counters.AllocationBytesPerSecond!.Value, 9);
        Assert.Equal((10 + 5) / 5.0, counters.ExceptionsPerSecond!.Value, 9);
        Assert.Equal(2 + 1, counters.Gen0Collections);
    }

    [Fact]
    public void Compute_SamplesOutsideEveryWindow_AreIgnored()
    {
        var window = new MeasuredWindow(Snapshot(workingSet: 100, queue: 0), Snapshot(workingSet: 200, queue: 1), T0, T0.AddSeconds(10));
        RuntimeSample[] samples =
        [
            Sample(1, T0.AddSeconds(-1), cpuPercent: 190, workingSet: 9_000, queue: 900, threads: 90, gen2Size: 9_999),  // before
            Sample(2, T0, cpuPercent: 40, workingSet: 300, queue: 3, threads: 5, gen2Size: 50),                           // start, inclusive
            Sample(3, T0.AddSeconds(5), cpuPercent: 80, workingSet: 250, queue: 7, threads: 6, gen2Size: 70),
            Sample(4, T0.AddSeconds(10), cpuPercent: 60, workingSet: 260, queue: 2, threads: 8, gen2Size: 60),           // end, inclusive
            Sample(5, T0.AddSeconds(10.5), cpuPercent: 199, workingSet: 8_000, queue: 800, threads: 80, gen2Size: 8_888), // after
        ];

        var counters = ServerCountersCalculator.Compute([window], samples);

        Assert.Equal(80, counters.CpuPercentMax);
        Assert.Equal(300, counters.WorkingSetBytes);
        Assert.Equal(7, counters.ThreadPoolQueueLength);
        Assert.Equal(8, counters.ThreadPoolThreads);
        Assert.Equal(70, counters.Gen2SizeBytes);
    }

    [Fact]
    public void Compute_SamplesInTwoWindows_TakesTheHighestOfEitherAndOfTheAfterSnapshots()
    {
        var first = new MeasuredWindow(Snapshot(gcHeap: 1), Snapshot(gcHeap: 5_000, lohSize: 10), T0, T0.AddSeconds(3));
        var second = new MeasuredWindow(Snapshot(gcHeap: 1), Snapshot(gcHeap: 10, lohSize: 20), T0.AddSeconds(20), T0.AddSeconds(23));
        RuntimeSample[] samples =
        [
            Sample(1, T0.AddSeconds(1), cpuPercent: 30, gcHeap: 4_000, lohSize: 15),
            Sample(2, T0.AddSeconds(10), cpuPercent: 150, gcHeap: 99_999, lohSize: 99_999), // between the windows
            Sample(3, T0.AddSeconds(21), cpuPercent: 90, gcHeap: 6_000, lohSize: 5),
        ];

        var counters = ServerCountersCalculator.Compute([first, second], samples);

        Assert.Equal(90, counters.CpuPercentMax);
        Assert.Equal(6_000, counters.GcHeapBytes); // sample 3 beats the first After snapshot's 5,000
        Assert.Equal(20, counters.LohSizeBytes);   // the second After snapshot beats every in-window sample
    }

    [Fact]
    public void Compute_NoSampleInAnyWindow_LevelsComeFromTheAfterSnapshotsAndCpuMaxIsNull()
    {
        var window = new MeasuredWindow(Snapshot(workingSet: 10, threads: 2), Snapshot(workingSet: 30, threads: 4, gen0Size: 12), T0, T0.AddSeconds(1));

        var counters = ServerCountersCalculator.Compute([window], [Sample(1, T0.AddSeconds(5), cpuPercent: 50)]);

        Assert.Null(counters.CpuPercentMax);
        Assert.Equal(30, counters.WorkingSetBytes);
        Assert.Equal(4, counters.ThreadPoolThreads);
        Assert.Equal(12, counters.Gen0SizeBytes);
    }

    [Fact]
    public void Compute_SnapshotsFromAServerWithoutTheNewCounters_LeavesThoseNull()
    {
        // What a reader gets from a server that predates the counters: the parameters' default, -1.
        var before = new RuntimeSnapshot(1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 0);
        var after = new RuntimeSnapshot(2, 100, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0);

        var counters = ServerCountersCalculator.Compute([new MeasuredWindow(before, after, T0, T0.AddSeconds(1))], []);

        Assert.Null(counters.ExceptionsPerSecond);
        Assert.Null(counters.WorkItemsPerSecond);
        Assert.Null(counters.Gen0SizeBytes);
        Assert.Null(counters.LohSizeBytes);
        Assert.Equal(100, counters.CpuPercent!.Value, 9);
        Assert.Equal(100, counters.AllocationBytesPerSecond!.Value, 9);
    }

    [Fact]
    public void Compute_NoWindows_Throws()
    {
        Assert.Throws<ArgumentException>(() => ServerCountersCalculator.Compute([], [Sample(1, T0, cpuPercent: 1)]));
        Assert.Throws<ArgumentException>(() => ServerCountersCalculator.Compute(Array.Empty<(ProcessStatSnapshot, ProcessStatSnapshot)>()));
    }

    [Fact]
    public void Compute_WindowEndingBeforeItStarts_Throws()
    {
        var window = new MeasuredWindow(Snapshot(), Snapshot(), T0, T0.AddSeconds(-1));

        Assert.Throws<ArgumentException>(() => ServerCountersCalculator.Compute([window], []));
    }

    [Fact]
    public void Compute_PeerWindows_CpuOverSummedWallTimeAndHighestResidentSet()
    {
        // Window 1: 0.5 CPU-seconds in 2 s; window 2: 1.5 CPU-seconds in 2 s. 100 × 2 / 4 = 50 %.
        (ProcessStatSnapshot, ProcessStatSnapshot)[] windows =
        [
            (Peer(cpu: 1.0, rss: 8_000, T0), Peer(cpu: 1.5, rss: 9_000, T0.AddSeconds(2))),
            (Peer(cpu: 7.0, rss: 9_500, T0.AddSeconds(30)), Peer(cpu: 8.5, rss: 8_500, T0.AddSeconds(32))),
        ];

        var counters = ServerCountersCalculator.Compute(windows);

        Assert.Equal(50, counters.CpuPercent!.Value, 9);
        Assert.Equal(9_000, counters.WorkingSetBytes);
        Assert.Null(counters.CpuPercentMax);
        Assert.Null(counters.GcHeapBytes);
        Assert.Null(counters.Gen0Collections);
        Assert.Null(counters.AllocationBytesPerSecond);
        Assert.Null(counters.ThreadPoolThreads);
        Assert.Null(counters.ExceptionsPerSecond);
    }

    [Fact]
    public void Compute_PeerWindowAcrossARestart_Throws()
    {
        var before = Peer(cpu: 5, rss: 1, T0);
        var restarted = Peer(cpu: 0.1, rss: 1, T0.AddSeconds(1)) with { StartTimeTicks = 999 };

        Assert.Throws<ArgumentException>(() => ServerCountersCalculator.Compute([(before, restarted)]));
    }

    private static ProcessStatSnapshot Peer(double cpu, long rss, DateTimeOffset at) => new(4242, 1234, cpu, rss, at);

    private static RuntimeSnapshot Snapshot(
        double cpu = 0, long allocated = 0, int gen0 = 0, int gen1 = 0, int gen2 = 0, long gcHeap = 0, long workingSet = 0,
        int threads = 0, long queue = 0, long contentions = 0, long exceptions = 0, long workItems = 0,
        long gen0Size = 0, long gen2Size = 0, long lohSize = 0) =>
        new(cpu, allocated, gen0, gen1, gen2, gcHeap, workingSet, threads, queue, contentions, ProcessThreads: 10, DiskWriteBytes: 0,
            ExceptionCount: exceptions, CompletedWorkItems: workItems, Gen0SizeBytes: gen0Size, Gen1SizeBytes: 0,
            Gen2SizeBytes: gen2Size, LohSizeBytes: lohSize, PohSizeBytes: 0);

    private static RuntimeSample Sample(
        long sequence, DateTimeOffset at, double cpuPercent, long workingSet = 0, long queue = 0, int threads = 0,
        long gcHeap = 0, long gen2Size = 0, long lohSize = 0) =>
        new(sequence, at, ElapsedSeconds: sequence, CpuSeconds: 0, cpuPercent, threads, queue, ThreadPoolCompletedWorkItems: 0,
            ProcessThreads: 10, workingSet, gcHeap, 0, 0, 0, LockContentions: 0, AllocatedBytes: 0, DiskWriteBytes: 0,
            ExceptionCount: 0, Gen0SizeBytes: 0, Gen1SizeBytes: 0, Gen2SizeBytes: gen2Size, LohSizeBytes: lohSize, PohSizeBytes: 0);
}
