using Freight.Bench.Load.Blame;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>The saturation rule (docs/load.md, Blame), case by case.</summary>
public sealed class SaturationRuleTests
{
    [Theory]
    [InlineData(0.95, 0.2, 2, "client-bound")]
    [InlineData(0.95, 1.95, 2, "client-bound")]
    [InlineData(0.5, 1.85, 2, "server-bound")]
    [InlineData(0.5, 0.95, 1, "server-bound")]
    [InlineData(0.5, 1.7, 2, "neither")]
    [InlineData(0.9, 0.5, 2, "neither")]
    public void Judge_Cpu_VerdictByTheNinetyPercentRule(double client, double server, int cpus, string verdict) =>
        Assert.Equal(verdict, SaturationRule.Judge(Measured(client, server, cpus, null)).Id);

    [Fact]
    public void Judge_ServerOnItsOneCore_ReasonSaysOneCore() =>
        Assert.EndsWith("the server used 95 % of 100 %, more than 90 % of its 1 core", SaturationRule.Judge(Measured(0.5, 0.95, 1, null)).Reason, StringComparison.Ordinal);

    [Fact]
    public void Judge_NoServerSampled_Undetermined() =>
        Assert.Equal(SaturationVerdict.Undetermined, SaturationRule.Judge(Measured(0.3, null, null, null)).Verdict);

    [Fact]
    public void Judge_ClientSaturatedWithoutServer_ClientBound() =>
        Assert.Equal(SaturationVerdict.ClientBound, SaturationRule.Judge(Measured(1.2, null, null, null)).Verdict);

    [Theory]
    [InlineData(new double[] { 3, 5, 2, 0, 3 }, "server-bound")]
    [InlineData(new double[] { 0, 0, 0, 0, 3, 5 }, "server-bound")]
    [InlineData(new double[] { 3, 0, 5, 0, 0 }, "neither")]
    [InlineData(new double[] { 0, 1, 1, 1, 0, 1 }, "neither")]
    [InlineData(new double[] { 0, 0, 2, 0, 0, 0 }, "neither")]
    [InlineData(new double[] { 0, 0, 0, 0 }, "neither")]
    [InlineData(new double[] { 0, 3, 5, 2 }, "neither")]
    [InlineData(new double[] { 7, 9 }, "neither")]
    public void Judge_ThreadPoolQueue_BacklogIsServerBound(double[] queue, string verdict) =>
        Assert.Equal(verdict, SaturationRule.Judge(Measured(0.3, 0.4, 2, queue)).Id);

    [Fact]
    public void Judge_BacklogInTooFewSeconds_NeitherAndSaysToRunLonger() =>
        Assert.EndsWith("; its thread pool queue held work in 3 of 4 seconds, too few seconds to judge (5 needed: run 7 s or more)",
            SaturationRule.Judge(Measured(0.3, 0.4, 2, [0, 3, 3, 2])).Reason, StringComparison.Ordinal);

    [Fact]
    public void Judge_BacklogWithGcPausingATenthOfTheRun_NamesGcNotBlockedThreads()
    {
        var saturation = SaturationRule.Judge(Measured(0.3, 0.4, 2, [3, 5, 2, 4, 3]) with { Gc = new GcPressure(23, 12, 900.0 * (1 << 20)) });

        Assert.Equal(SaturationVerdict.ServerBound, saturation.Verdict);
        Assert.Equal("server-bound by garbage collection: its thread pool queue held work in 5 of 5 seconds while GC paused it for 23 % of the run (12 gen2 collections, 900 MiB/s allocated); its CPU was not saturated",
            saturation.Reason);
    }

    [Fact]
    public void Judge_BacklogWithLittleGc_ThreadsBlocked() =>
        Assert.EndsWith("(threads blocked)",
            SaturationRule.Judge(Measured(0.3, 0.4, 2, [3, 5, 2, 4, 3]) with { Gc = new GcPressure(2, 0, 1 << 20) }).Reason, StringComparison.Ordinal);

    /// <summary>
    /// A server paused by GC for half the run, its requests waiting in the sockets while it collected: no thread-pool
    /// backlog and neither side's CPU saturated read "neither — network or latency bound" (a user app at 54 %).
    /// </summary>
    [Fact]
    public void Judge_GcPausedTheServerWithoutBacklog_ServerBoundByGcWithTheShare()
    {
        var saturation = SaturationRule.Judge(Measured(0.09, 1.2, 2, [0, 1, 0, 0, 1, 0, 0]) with { ClientAllowedCpus = 2, Gc = new GcPressure(54, 83, 941.0 * (1 << 20)) });

        Assert.Equal(SaturationVerdict.ServerBound, saturation.Verdict);
        Assert.Equal("server-bound by garbage collection: GC paused it for 54 % of the run (83 gen2 collections, 941 MiB/s allocated), answering nothing meanwhile; neither side's CPU was saturated: client 9 % of 200 %, server 120 % of 200 %",
            saturation.Reason);
    }

    [Theory]
    [InlineData(10, "server-bound")]
    [InlineData(9.4, "neither")]
    public void Judge_GcShareWithoutBacklog_ServerBoundFromTheBacklogRulesTenPercent(double paused, string verdict) =>
        Assert.Equal(verdict, SaturationRule.Judge(Measured(0.3, 0.4, 2, [0, 0, 0, 0, 0]) with { Gc = new GcPressure(paused, 1, null) }).Id);

    [Fact]
    public void Judge_GcPausesInTooFewSeconds_NeitherAndSaysToRunLonger() =>
        Assert.Equal("neither side saturated — network or latency bound: client 30 % of 100 %, server 40 % of 200 %; GC paused it for 30 % of the run (2 gen2 collections), too few seconds to judge (5 needed: run 7 s or more)",
            SaturationRule.Judge(Measured(0.3, 0.4, 2, [0, 0, 0, 0]) with { Gc = new GcPressure(30, 2, null) }).Reason);

    [Fact]
    public void Judge_BacklogAndGcInTooFewSeconds_BothSaidOnce() =>
        Assert.EndsWith("; its thread pool queue held work in 3 of 4 seconds and GC paused it for 30 % of the run, too few seconds to judge (5 needed: run 7 s or more)",
            SaturationRule.Judge(Measured(0.3, 0.4, 2, [0, 3, 3, 2]) with { Gc = new GcPressure(30, null, null) }).Reason, StringComparison.Ordinal);

    [Theory]
    [InlineData(0.8, "neither side saturated — network or latency bound: client 30 % of 200 %, server 40 % of 200 %; others used 80 % of 200 %: the verdict is weak")]
    [InlineData(0.1, "neither side saturated — network or latency bound: client 30 % of 200 %, server 40 % of 200 %")]
    public void Judge_OtherProcessesBusy_VerdictSaysItIsWeak(double others, string reason) =>
        Assert.Equal(reason, SaturationRule.Judge(Measured(0.3, 0.4, 2, null) with { ClientAllowedCpus = 2, OthersCpuCores = others, MachineCpus = 2 }).Reason);

    [Theory]
    [InlineData(0.25, 1.56, 0.03, "server-bound")]
    [InlineData(0.5, 1.4, 0.0, "server-bound")]
    [InlineData(0.8, 0.7, 0.4, "neither")]
    [InlineData(0.3, 0.7, 0.9, "neither")]
    [InlineData(0.2, 1.2, 0.1, "neither")]
    public void Judge_ClientAndServerShareTheMachine_SaturatedMostlyByTheServerIsServerBound(double client, double server, double others, string verdict) =>
        Assert.Equal(verdict, SaturationRule.Judge(Measured(client, server, 2, null) with { ClientAllowedCpus = 2, OthersCpuCores = others, MachineCpus = 2 }).Id);

    [Fact]
    public void Judge_MachineSaturatedByTheServer_ReasonGivesEachShare() =>
        Assert.Equal("server-bound: the machine's cores were saturated (184 % of 200 %), most by the server: server 156 % of 200 %, client 25 % of 200 %, others 3 % of 200 %; sharing the cores with the client, the server's CPU a response set the rate",
            SaturationRule.Judge(Measured(0.25, 1.56, 2, null) with { ClientAllowedCpus = 2, OthersCpuCores = 0.03, MachineCpus = 2 }).Reason);

    [Fact]
    public void Judge_MachineSaturatedByTheServerWithOthersBusy_OthersNamedOnceAtTheEnd() =>
        Assert.Equal("server-bound: the machine's cores were saturated (198 % of 200 %), most by the server: server 103 % of 200 %, client 18 % of 200 %; sharing the cores with the client, the server's CPU a response set the rate; others used 77 % of 200 %: the verdict is weak",
            SaturationRule.Judge(Measured(0.18, 1.03, 2, null) with { ClientAllowedCpus = 2, OthersCpuCores = 0.77, MachineCpus = 2 }).Reason);

    [Fact]
    public void Judge_ServerPinnedToOneCoreOfTwo_MachineRuleDoesNotApply() =>
        Assert.Equal("neither", SaturationRule.Judge(Measured(0.6, 0.8, 1, null) with { ClientAllowedCpus = 2, OthersCpuCores = 0.5, MachineCpus = 2 }).Id);

    [Fact]
    public void Judge_ServerExited_NoVerdictWhateverTheCpu()
    {
        var saturation = SaturationRule.Judge(Measured(0.95, 0.01, 2, null) with { ServerProcessId = 4321, ServerExited = true });

        Assert.Equal((SaturationVerdict.Undetermined, "no verdict: the server process (4321) exited during the run"), (saturation.Verdict, saturation.Reason));
    }

    [Fact]
    public void Judge_ClientBound_ReasonSaysTheFigureIsAFloor() =>
        Assert.StartsWith("client-bound — this figure is a floor for the server", SaturationRule.Judge(Measured(1, 0.1, 2, null)).Reason, StringComparison.Ordinal);

    [Theory]
    [InlineData(0, 5.0, "no verdict: no response measured")]
    [InlineData(1, 0.06, "no verdict: the run lasted 0.06 s; a verdict needs 1 s or more")]
    public void Judge_NothingOrTooLittleMeasured_NoVerdict(long requests, double seconds, string reason)
    {
        var saturation = SaturationRule.Judge(new SaturationInputs(1.5, 0.1, 2, null, requests, seconds));

        Assert.Equal((SaturationVerdict.Undetermined, reason), (saturation.Verdict, saturation.Reason));
    }

    /// <summary>
    /// --through-proxy: the proxy is judged as the server is, after it (a saturated server limits before its proxy can):
    /// past 90 % of its cores it is the limit, and an nginx worker of one thread is past it at 90 % of one core, though
    /// the proxy's two workers may use both cores ("proxy 50 % of 200 %" read 'neither' for a saturated worker).
    /// </summary>
    [Theory]
    [InlineData(1.85, null, 0.4, "proxy-bound: the proxy used 185 % of 200 %, more than 90 % of its 2 cores; the server behind it used 40 % of 200 %")]
    [InlineData(1.05, 0.97, 0.4, "proxy-bound: its process 7246, of one thread, used 97 % of a core, more than 90 % of all one thread can (the proxy 105 % of 200 %); the server behind it used 40 % of 200 %")]
    [InlineData(1.85, null, 1.85, "server-bound: the server used 185 % of 200 %, more than 90 % of its 2 cores")]
    [InlineData(0.6, 0.55, 0.4, "neither side saturated — network or latency bound: client 30 % of 100 %, server 40 % of 200 %, proxy 60 % of 200 %")]
    public void Judge_ThroughProxy_ProxyBoundPastNinetyPercentOfItsCoresOrOfItsOneThreadWorker(double proxy, double? worker, double server, string reason)
    {
        var inputs = Measured(0.3, server, 2, null) with
        {
            ProxyCpuCores = proxy,
            ProxyAllowedCpus = 2,
            ProxyBusiestThread = worker is { } cores ? (7246, cores) : null,
            ProxyProcessId = 7244,
        };

        Assert.Equal(reason, SaturationRule.Judge(inputs).Reason);
    }

    /// <summary>Client, server and proxy sharing two cores, all busy: the one that used the most is the limit, the proxy too.</summary>
    [Fact]
    public void Judge_ThroughProxyMachineSaturatedMostByTheProxy_ProxyBound()
    {
        var inputs = Measured(0.4, 0.5, 2, null) with { ProxyCpuCores = 1.0, ProxyAllowedCpus = 2, MachineCpus = 2, OthersCpuCores = 0.05 };

        var verdict = SaturationRule.Judge(inputs);

        Assert.Equal("proxy-bound", verdict.Id);
        Assert.Equal("proxy-bound: the machine's cores were saturated (195 % of 200 %), most by the proxy: proxy 100 % of 200 %, server 50 % of 200 %, "
            + "client 40 % of 200 %, others 5 % of 200 %; sharing the cores with the client, the proxy's CPU a response set the rate", verdict.Reason);
    }

    [Fact]
    public void Judge_ProxyExited_NoVerdictNamingIt() =>
        Assert.Equal("no verdict: the proxy process (7246) exited during the run",
            SaturationRule.Judge(Measured(0.3, 0.4, 2, null) with { ProxyCpuCores = 0.2, ProxyAllowedCpus = 2, ProxyProcessId = 7246, ProxyExited = true }).Reason);

    /// <summary>A run long enough, with responses: what the CPU and queue rules judge.</summary>
    private static SaturationInputs Measured(double client, double? server, int? cpus, IReadOnlyList<double>? queue) =>
        new(client, server, cpus, queue, RequestsMeasured: 100, RunSeconds: 3);
}
