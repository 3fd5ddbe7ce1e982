using Freight.Bench.Load.Blame;
using Freight.Bench.Load.Command;
using Freight.Bench.Load.Engine;
using Freight.Bench.Measure;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// What <see cref="LoadReport.Build"/> makes of a run through a proxy (<c>--through-proxy</c>), from measurements given
/// whole: the proxy's CPU is its own, not counted among the other processes, which made a verdict weak.
/// </summary>
public sealed class LoadReportProxyTests
{
    private static readonly DateTimeOffset Start = new(2026, 11, 29, 8, 0, 0, TimeSpan.Zero);

    /// <summary>
    /// Two cores for 10 s: the machine was busy 13 CPU seconds, the client took 2, the server 3 and the proxy (nginx,
    /// a worker of one thread at 70 % of a core) 7. Others used 1 s, 5 % of the cores: not weak. Before, the proxy's
    /// 7 s were others', "others used 40 % of 200 %: the verdict is weak".
    /// </summary>
    [Fact]
    public void Build_ThroughProxy_ProxysCpuIsItsOwnNotOthers()
    {
        var settings = new LoadSettings
        {
            Engine = new LoadOptions { Target = new Uri("http://127.0.0.1:8480/files/big.bin"), Duration = TimeSpan.FromSeconds(10) },
            ServerProcessId = 5180,
            ProxyProcessId = 7244,
            ProxyWorkers = [7246],
        };
        var measured = new LoadMeasurements([new MeasuredRun(Start, 2, Run())], Samples(1, 0.2), Samples(5180, 0.3), null, "not a .NET process")
        {
            ProxySamples = Samples(7244, 0.7),
            ProxyMembers = [new ProcessWatch.MemberUse(7244, 0, 1), new ProcessWatch.MemberUse(7246, 0.7, 1)],
            MachineBefore = new MachineCpuSnapshot(100, 2, Start),
            MachineAfter = new MachineCpuSnapshot(113, 2, Start.AddSeconds(10)),
        };

        var blame = LoadReport.Build(settings, measured).Results[0].Blame!;

        Assert.Equal(0.1, blame.OthersCpuCores!.Value, 6);
        Assert.Equal(7244, blame.Proxy!.ProcessId);
        Assert.Equal([7246], blame.Proxy.WorkerProcessIds);
        Assert.Equal(0.7, blame.Proxy.CpuCores!.Value, 6);
        Assert.Equal("neither side saturated — network or latency bound: client 20 % of 200 %, server 30 % of 200 %, proxy 70 % of 200 %", blame.Reason);
    }

    /// <summary>
    /// <c>--runs 3</c> through a proxy: three 10 s runs 5 s apart, each moving 2.5 GiB in 40 responses; the server busy at
    /// 0.3 cores and the proxy at 0.7 throughout, between the runs too. The proxy's cost is drawn as the server's: its CPU
    /// within the runs (7 s each, not the 28 s from the first run's start to the last one's end), per GiB over all runs
    /// and each run's apart (what compare draws an interval from), and per response.
    /// </summary>
    [Fact]
    public void Build_ThroughProxyThreeRuns_ProxysCostsDrawnAsTheServers()
    {
        var settings = new LoadSettings
        {
            Engine = new LoadOptions { Target = new Uri("http://127.0.0.1:8480/files/big.bin"), Duration = TimeSpan.FromSeconds(10) },
            ServerProcessId = 5180,
            ProxyProcessId = 7244,
            Runs = 3,
        };
        var runs = Enumerable.Range(0, 3).Select(i => new MeasuredRun(Start.AddSeconds(15 * i), 2, Run())).ToList();
        var measured = new LoadMeasurements(runs, Samples(1, 0.2, 40), Samples(5180, 0.3, 40), null, "not a .NET process")
        {
            ProxySamples = Samples(7244, 0.7, 40),
        };

        var row = LoadReport.Build(settings, measured).Results[0];

        var proxy = row.Blame!.Proxy!;
        Assert.Equal(0.3 * 10 / 2.5, row.Server!.CpuSecondsPerGiB!.Value, 6);
        Assert.Equal(0.7 * 10 / 2.5, proxy.CpuSecondsPerGiB!.Value, 6);
        Assert.Equal([2.8, 2.8, 2.8], proxy.CpuSecondsPerGiBSamples!.Select(cost => Math.Round(cost, 6)));
        Assert.Equal(0.7 * 10 / 40, proxy.CpuSecondsPerResponse!.Value, 6);
        Assert.Equal(0.7, proxy.CpuCores!.Value, 6);
    }

    /// <summary>The samples of a process using <paramref name="cores"/> over <paramref name="seconds"/> (the 10 s run), one a second.</summary>
    private static List<ProcessStatSnapshot> Samples(int processId, double cores, int seconds = 10) =>
        [.. Enumerable.Range(0, seconds + 1).Select(second => new ProcessStatSnapshot(processId, 1, second * cores, 10 << 20, Start.AddSeconds(second)) { Threads = 1, AllowedCpus = 2 })];

    private static LoadResult Run()
    {
        var histogram = new LatencyHistogram();
        histogram.Record(250_000);
        return new LoadResult
        {
            Mode = LoadMode.ClosedLoop,
            StopReason = LoadStopReason.Duration,
            Elapsed = TimeSpan.FromSeconds(10),
            Responses = 40,
            StatusCodes = new Dictionary<int, long> { [200] = 40 },
            SocketErrors = 0,
            Timeouts = 0,
            Errors = 0,
            Dropped = 0,
            CancelledAtEnd = 0,
            BodyBytes = 40L << 26,
            RequestsPerSecond = 4,
            Latency = histogram.Summarize(),
            Histogram = histogram,
            Series = [],
        };
    }
}
