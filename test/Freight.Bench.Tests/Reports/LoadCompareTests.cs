using System.Text.RegularExpressions;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// <c>freight compare</c> of <c>freight load</c> results: one row a file, one run each, with a per-second series. Rows are
/// built here as <c>freight load --json</c> writes them (scenario <c>load/&lt;method&gt;</c>, suite <c>load</c>).
/// </summary>
public sealed class LoadCompareTests
{
    [Fact]
    public void CompareFiles_SingleRowsDifferingOnlyInUrl_ComparedNamingTheParameter()
    {
        var bad = Source("bad.json", LoadRow("http://127.0.0.1:5080/upload/bad", [100, 100, 100, 100]));
        var good = Source("good.json", LoadRow("http://127.0.0.1:5080/upload/good", [200, 200, 200, 200]));

        var text = CompareReport.CompareFiles([bad, good]).ReplaceLineEndings("\n");

        Assert.DoesNotContain(CompareReport.NoCommonScenario, text, StringComparison.Ordinal);
        Assert.DoesNotContain("only in", text, StringComparison.Ordinal);
        Assert.Contains("url: http://127.0.0.1:5080/upload/bad → http://127.0.0.1:5080/upload/good (good.json)\n", text, StringComparison.Ordinal);
        var table = Table(text, "load/put");
        Assert.Equal(["metric", "bad.json", "good.json"], Columns(table.Single(l => l.StartsWith("metric", StringComparison.Ordinal))));
        Assert.StartsWith("200 (+100.00%)", Row(table, "requests/s")[2], StringComparison.Ordinal);
    }

    [Fact]
    public void CompareFiles_SingleRowsDifferingInTwoParameters_ComparedNamingBoth()
    {
        var a = Source("a.json", LoadRow("http://127.0.0.1:5080/a", [100, 100, 100, 100]));
        var other = LoadRow("http://127.0.0.1:5080/b", [100, 100, 100, 100]);
        other.Parameters.Verify = "status";
        var b = Source("b.json", other);

        var text = CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n");

        Assert.DoesNotContain(CompareReport.NoCommonScenario, text, StringComparison.Ordinal);
        Assert.Contains("url: http://127.0.0.1:5080/a → http://127.0.0.1:5080/b (b.json)\n", text, StringComparison.Ordinal);
        Assert.Contains("verify: digest-fields → status (b.json)\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void CompareFiles_SingleRowsOfTwoScenarios_StillListedApart()
    {
        var put = Source("put.json", LoadRow("http://127.0.0.1:5080/a", [100, 100, 100, 100]));
        var get = LoadRow("http://127.0.0.1:5080/a", [100, 100, 100, 100]);
        var b = Source("get.json", new ScenarioResult { Scenario = "load/get", Suite = get.Suite, Parameters = get.Parameters, Runs = 1, Verified = true, RequestsPerSecond = get.RequestsPerSecond });

        var text = CompareReport.CompareFiles([put, b]).ReplaceLineEndings("\n");

        Assert.Contains(CompareReport.NoCommonScenario, text, StringComparison.Ordinal);
        Assert.Contains("only in put.json: load/put", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareFiles_TwoRunsOfOneCommand_NoRowMarkedBetterOrWorse()
    {
        // Two runs of `freight load http://127.0.0.1:46321/files/small.bin -c 8 -d 10 --server-pid PID` one after the other
        // on the busy 2-core machine (Fixtures/README.md): requests/s +8.65%, p99 -22.27%, server CPU/GiB -9.06% apart.
        var sources = new List<CompareSource>();
        foreach (var name in new[] { "load-aa-1.json", "load-aa-2.json" })
        {
            var (report, error) = await CompareCommand.LoadAsync(Path.Combine(AppContext.BaseDirectory, "Reports", "Fixtures", name));
            Assert.True(report is not null, error);
            sources.Add(new CompareSource(name, report));
        }

        var text = CompareReport.CompareFiles(sources).ReplaceLineEndings("\n");

        var table = Table(text, text.Split('\n')[0]);
        Assert.Contains("measured: load-aa-1.json 1 run, 10 s; load-aa-2.json 1 run, 10 s", table);
        var rows = table.SkipWhile(l => !l.StartsWith("metric", StringComparison.Ordinal)).Skip(2).ToArray();
        Assert.Equal(31, rows.Length);
        Assert.All(rows, row => Assert.False(row.EndsWith(CompareReport.Better, StringComparison.Ordinal) || row.EndsWith(CompareReport.Worse, StringComparison.Ordinal), row));
        Assert.Equal(["requests/s", "15,140", "16,450 (+8.65%) ≈"], Row(table, "requests/s"));
        Assert.Equal(["server CPU (s/GiB)", "11.5", "10.4 (-9.06%) ≈"], Row(table, "server CPU (s/GiB)"));
        Assert.Contains("≈ no clear difference", text, StringComparison.Ordinal);
    }

    [Fact]
    public void CompareFiles_OneRunEach_ChangeBeyondSecondsIntervalAndAaFloor_IsMarked()
    {
        // 100 → 800 requests/s (+700%, beyond the 600% floor), every second alike: the interval of the ratio is far from 1.
        var a = Source("a.json", LoadRow("http://127.0.0.1:5080/x", [98, 102, 100, 99, 101, 100, 98, 102, 100]));
        var b = Source("b.json", LoadRow("http://127.0.0.1:5080/x", [798, 802, 800, 799, 801, 800, 798, 802, 800], p50Milliseconds: 60));

        var table = Table(CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n"), "load/put — " + CompareKey.LabelOf(a.Report.Results[0]));

        Assert.Contains("measured: a.json 1 run, 9 s; b.json 1 run, 9 s", table);
        Assert.Equal(["requests/s", "100", "800 (+700.00%) ✓"], Row(table, "requests/s"));
        Assert.Equal(["throughput (MiB/s)", "100", "800 (+700.00%) ✓"], Row(table, "throughput (MiB/s)"));

        // 2 → 60 ms is +2,900%, beyond the latency floor (2,400%), each second alike.
        Assert.Equal(["latency p50 (ms)", "2.00", "60.0 (+2,900.00%) ✗"], Row(table, "latency p50 (ms)"));
    }

    [Fact]
    public void CompareFiles_OneRunEach_FallAsLargeAsAMarkedRise_IsMarkedToo()
    {
        // 800 → 100 requests/s is the rise above read the other way: -87.5 %, which no floor of 100 % or more could pass
        // as a relative change; the floors hold either run as the base.
        var a = Source("a.json", LoadRow("http://127.0.0.1:5080/x", [798, 802, 800, 799, 801, 800, 798, 802, 800], p50Milliseconds: 60));
        var b = Source("b.json", LoadRow("http://127.0.0.1:5080/x", [98, 102, 100, 99, 101, 100, 98, 102, 100]));

        var table = Table(CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n"), "load/put — " + CompareKey.LabelOf(a.Report.Results[0]));

        Assert.Equal(["requests/s", "800", "100 (-87.50%) ✗"], Row(table, "requests/s"));
        Assert.Equal(["latency p50 (ms)", "60.0", "2.00 (-96.67%) ✓"], Row(table, "latency p50 (ms)"));
    }

    [Theory]
    [InlineData(0.05, 0.05, "✓", "quiet machine")]
    [InlineData(0.05, 0.5, "≈", "busy machine")]
    [InlineData(null, 0.05, "≈", "busy machine")]
    public void CompareFiles_OneRunEach_QuietFloorsOnlyWhenEveryRunWasQuiet(double? othersA, double? othersB, string mark, string legend)
    {
        // 100 → 200 requests/s, every second alike: past the quiet machine's rate floor, well inside the busy one's (600%).
        // Others' CPU is out of 2 cores; a quiet run is one where they used at most 10% of the machine (0.2 cores).
        var a = LoadRow("http://127.0.0.1:5080/x", [98, 102, 100, 99, 101, 100, 98, 102, 100]);
        var b = LoadRow("http://127.0.0.1:5080/x", [198, 202, 200, 199, 201, 200, 198, 202, 200]);
        a.Blame = othersA is { } oa ? Blame(oa) : null;
        b.Blame = othersB is { } ob ? Blame(ob) : null;

        var text = CompareReport.CompareFiles([Source("a.json", a), Source("b.json", b)]).ReplaceLineEndings("\n");

        var table = Table(text, "load/put — " + CompareKey.LabelOf(a));
        Assert.Equal(["requests/s", "100", $"200 (+100.00%) {mark}"], Row(table, "requests/s"));
        Assert.Contains($"two runs of one command differed by on a {legend}", text, StringComparison.Ordinal);
    }

    [Fact]
    public void CompareFiles_OneRunEach_QuietRunsWithoutAMeasuredServer_UseTheBusyFloors()
    {
        // No --server-pid: a local server's CPU is among the others, so "others" says nothing about the machine.
        var a = LoadRow("http://127.0.0.1:5080/x", [98, 102, 100, 99, 101, 100, 98, 102, 100]);
        var b = LoadRow("http://127.0.0.1:5080/x", [198, 202, 200, 199, 201, 200, 198, 202, 200]);
        a.Blame = Blame(0.05) with { ServerCpuCores = null };
        b.Blame = Blame(0.05) with { ServerCpuCores = null };

        var text = CompareReport.CompareFiles([Source("a.json", a), Source("b.json", b)]).ReplaceLineEndings("\n");

        Assert.Equal(["requests/s", "100", "200 (+100.00%) ≈"], Row(Table(text, "load/put — " + CompareKey.LabelOf(a)), "requests/s"));
    }

    private static LoadBlame Blame(double othersCpuCores) =>
        new("server-bound", "test", ClientCpuCores: 0.5, ServerCpuCores: 1.2, ServerAllowedCpus: 2) { OthersCpuCores = othersCpuCores, MachineCpus = 2 };

    [Fact]
    public void CompareFiles_OneRunEach_ChangeInsideTheRunsSeconds_IsNoClearDifference()
    {
        // +700% overall, but the base's seconds swing 10 → 100 → 1,000 a second: its batches' spread holds a ratio of 1.
        var a = Source("a.json", LoadRow("http://127.0.0.1:5080/x", [10, 10, 10, 100, 100, 100, 1000, 1000, 1000], requestsPerSecond: 100));
        var b = Source("b.json", LoadRow("http://127.0.0.1:5080/x", [800, 800, 800, 800, 800, 800, 800, 800, 800]));

        var table = Table(CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n"), "load/put — " + CompareKey.LabelOf(a.Report.Results[0]));

        Assert.Equal(["requests/s", "100", "800 (+700.00%) ≈"], Row(table, "requests/s"));
    }

    [Fact]
    public void CompareFiles_OneRunEach_OneNumberFiguresMarkedOnlyBeyondTheAaFloor()
    {
        var baseRow = LoadRow("http://127.0.0.1:5080/x", [100, 100, 100, 100]);
        baseRow.Server = new SideCost(0.5, Gen2: 0);
        baseRow.Counters = new ServerCounters { CpuPercent = 50, Gen2Collections = 0, Gen0Collections = 10 };
        var smaller = LoadRow("http://127.0.0.1:5080/x", [100, 100, 100, 100]);
        smaller.Server = new SideCost(0.449, Gen2: 1);
        smaller.Counters = new ServerCounters { CpuPercent = 50, Gen2Collections = 1, Gen0Collections = 80 };
        var larger = LoadRow("http://127.0.0.1:5080/x", [100, 100, 100, 100]);
        larger.Server = new SideCost(0.85);
        larger.Counters = new ServerCounters { CpuPercent = 50, Gen2Collections = 0, Gen0Collections = 12 };

        var text = CompareReport.CompareFiles([Source("a.json", baseRow), Source("b.json", smaller), Source("c.json", larger)]).ReplaceLineEndings("\n");
        var table = Table(text, "load/put — " + CompareKey.LabelOf(baseRow));

        // -10.2% server CPU/GiB is inside the 60% two runs of one command differed by; +70% is beyond it. Gen 2 0 → 1 is
        // within two counts' spread (2√1); gen 0 10 → 80 is +700%, beyond the 600% floor and 2√90.
        Assert.Equal(["server CPU (s/GiB)", "0.500", "0.449 (-10.20%) ≈", "0.850 (+70.00%) ✗"], Row(table, "server CPU (s/GiB)"));
        Assert.Equal(["gen 2 GCs", "0", "1 (+1) ≈", "0 (+0) ≈"], Row(table, "gen 2 GCs"));
        Assert.Equal(["gen 0 GCs", "10", "80 (+700.00%) ✗", "12 (+20.00%) ≈"], Row(table, "gen 0 GCs"));

        // --noise raises the floors, never lowers them.
        var noisy = Table(CompareReport.CompareFiles([Source("a.json", baseRow), Source("c.json", larger)], noisePercent: 80).ReplaceLineEndings("\n"), "load/put — " + CompareKey.LabelOf(baseRow));
        Assert.Equal(["server CPU (s/GiB)", "0.500", "0.850 (+70.00%) ≈"], Row(noisy, "server CPU (s/GiB)"));
    }

    /// <summary>
    /// Through a proxy (<c>--through-proxy</c>) its CPU per GiB is a row beside the server's, judged as the server's is
    /// (its floor: 60 %), with its share of the cores and its resident set unmarked; results without one have no such rows.
    /// </summary>
    [Fact]
    public void CompareFiles_OneRunEachThroughAProxy_ProxysCostJudgedAsTheServers()
    {
        ScenarioResult Proxied(double serverCost, double proxyCost, double proxyCores)
        {
            var row = LoadRow("http://127.0.0.1:18480/x", [100, 100, 100, 100]);
            row.Server = new SideCost(serverCost);
            row.Blame = Blame(0.5) with { Proxy = new LoadProxy(24884, proxyCores, 2) { CpuSecondsPerGiB = proxyCost, WorkingSetBytesMax = 16L << 20 } };
            return row;
        }

        var baseRow = Proxied(0.5, 1.0, 0.4);
        var text = CompareReport.CompareFiles([Source("a.json", baseRow), Source("b.json", Proxied(0.5, 1.3, 0.5)), Source("c.json", Proxied(0.5, 1.7, 0.7))]).ReplaceLineEndings("\n");
        var table = Table(text, "load/put — " + CompareKey.LabelOf(baseRow));

        // +30% is inside the 60% two runs of one command differed by; +70% beyond it.
        Assert.Equal(["proxy CPU (s/GiB)", "1.00", "1.30 (+30.00%) ≈", "1.70 (+70.00%) ✗"], Row(table, "proxy CPU (s/GiB)"));
        Assert.Equal(["proxy CPU usage (%)", "40.0", "50.0 (+25.00%)", "70.0 (+75.00%)"], Row(table, "proxy CPU usage (%)"));
        Assert.Equal(["proxy working set (MiB)", "16.0", "16.0 (+0.00%) ≈", "16.0 (+0.00%) ≈"], Row(table, "proxy working set (MiB)"));
        Assert.Contains("CPU/GiB server 60%, proxy 60%, client", text, StringComparison.Ordinal);

        var direct = CompareReport.CompareFiles([Source("a.json", LoadRow("http://127.0.0.1:5080/x", [100, 100])), Source("b.json", LoadRow("http://127.0.0.1:5080/x", [100, 100]))]);
        Assert.DoesNotContain("\nproxy ", direct, StringComparison.Ordinal);
    }

    /// <summary>Five runs a side through a proxy: its cost is marked from the interval over its runs, as the server's.</summary>
    [Fact]
    public void CompareFiles_FiveRunsEachThroughAProxy_ProxysCostMarkedWithTheInterval()
    {
        ScenarioResult Proxied(double[] proxyCost)
        {
            var row = RunsRow([100, 104, 98, 102, 101], serverCost: [0.50, 0.52, 0.49, 0.51, 0.50]);
            row.Blame = Blame(0.5) with
            {
                Proxy = new LoadProxy(24884, 0.5, 2) { CpuSecondsPerGiB = Summary.OfRuns(proxyCost)!.Median, CpuSecondsPerGiBSamples = proxyCost },
            };
            return row;
        }

        var a = Proxied([1.00, 1.02, 0.99, 1.01, 1.00]);
        var table = Table(CompareReport.CompareFiles([Source("a.json", a), Source("b.json", Proxied([0.80, 0.81, 0.79, 0.82, 0.80]))]).ReplaceLineEndings("\n"), "load/put — " + CompareKey.LabelOf(a));

        Assert.Matches(@"^0\.800 \(-20\.00%\) ✓ \[0\.7[0-9]+–0\.8[0-9]+×\]$", Row(table, "proxy CPU (s/GiB)")[2]);
    }

    [Fact]
    public async Task CompareFiles_FiveRunsOfOneCommandEach_NoRowMarkedBetterOrWorse()
    {
        // Two `freight load …/files/4k.bin -c 8 --runs 5 -d 5 --server-pid PID` one after the other (Fixtures/README.md); the
        // first's first run met a cold server (24 s/GiB against ~10): the intervals are wide, and hold 1.
        var text = CompareReport.CompareFiles(await FixturesAsync("load-runs-aa-1.json", "load-runs-aa-2.json")).ReplaceLineEndings("\n");

        var table = Table(text, text.Split('\n')[0]);
        Assert.Contains("measured: load-runs-aa-1.json 5 runs × 5 s; load-runs-aa-2.json 5 runs × 5 s", table);
        var rows = table.SkipWhile(l => !l.StartsWith("metric", StringComparison.Ordinal)).Skip(2).ToArray();
        Assert.All(rows, row => Assert.False(row.Contains(CompareReport.Better, StringComparison.Ordinal) || row.Contains(CompareReport.Worse, StringComparison.Ordinal), row));
        Assert.Equal(["requests/s", "26,085", "25,471 (-2.35%) ≈ [0.829–1.960×]"], Row(table, "requests/s"));
        Assert.Equal(["server CPU (s/GiB)", "11.7", "10.0 (-14.24%) ≈ [0.411–1.117×]"], Row(table, "server CPU (s/GiB)"));
    }

    [Fact]
    public async Task CompareFiles_FiveRunsEachOfAUsersApp_AaPair_NoRowMarked()
    {
        // A 25 MB JSON GET from a dotnet-run app, twice (Fixtures/README.md): ~54 responses a run, p99 13 % and the working
        // set 16 % apart.
        var text = CompareReport.CompareFiles(await FixturesAsync("load-userapp-aa-1.json", "load-userapp-aa-2.json")).ReplaceLineEndings("\n");

        var table = Table(text, text.Split('\n')[0]);
        var rows = table.SkipWhile(l => !l.StartsWith("metric", StringComparison.Ordinal)).Skip(2).ToArray();
        Assert.NotEmpty(rows);
        Assert.All(rows, row => Assert.False(row.Contains(CompareReport.Better, StringComparison.Ordinal) || row.Contains(CompareReport.Worse, StringComparison.Ordinal), row));
        Assert.StartsWith("245", Row(table, "latency p99 (ms)")[1], StringComparison.Ordinal);

        // p50 is judged from its runs at any count of responses (CompareMetrics, P99Runs): a median is not the slowest one.
        Assert.EndsWith("≈ [0.833–1.134×]", Row(table, "latency p50 (ms)")[2], StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareFiles_FiveRunsEach_RealDifferences_Marked()
    {
        // -c 8 against -c 1 on the 4 KiB file, and the 4 KiB file against a 1 MiB one, five runs each (Fixtures/README.md).
        var connections = CompareReport.CompareFiles(await FixturesAsync("load-runs-aa-2.json", "load-runs-c1.json")).ReplaceLineEndings("\n");
        var size = CompareReport.CompareFiles(await FixturesAsync("load-runs-aa-2.json", "load-runs-1mib.json")).ReplaceLineEndings("\n");

        var byConnections = Table(connections, connections.Split('\n')[0]);
        Assert.Contains("connections: 8 → 1 (load-runs-c1.json)", byConnections);
        Assert.Equal(["requests/s", "25,471", "17,994 (-29.36%) ✗ [0.654–0.835×]"], Row(byConnections, "requests/s"));
        Assert.Equal(["latency p50 (ms)", "0.240", "0.044 (-81.67%) ✓ [0.161–0.194×]"], Row(byConnections, "latency p50 (ms)"));
        var bySize = Table(size, size.Split('\n')[0]);
        Assert.Equal(["throughput (MiB/s)", "99.5", "2,534 (+2,446.42%) ✓ [20.3–30.4×]"], Row(bySize, "throughput (MiB/s)"));
        Assert.Equal(["server CPU (s/GiB)", "10.0", "0.428 (-95.74%) ✓ [0.0386–0.0468×]"], Row(bySize, "server CPU (s/GiB)"));
    }

    [Fact]
    public void CompareFiles_FiveRunsEach_IntervalOverRunsExcludesOne_MarkedWithTheInterval()
    {
        // Requests/s doubled, each side's runs within a few percent: the interval of the ratio is far from 1, though +100%
        // is well inside the 600% floor two single runs need.
        var a = Source("a.json", RunsRow([100, 104, 98, 102, 101], serverCost: [0.50, 0.52, 0.49, 0.51, 0.50]));
        var b = Source("b.json", RunsRow([200, 205, 198, 210, 202], serverCost: [1.00, 1.04, 0.98, 1.02, 1.01]));

        var text = CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n");
        var table = Table(text, "load/put — " + CompareKey.LabelOf(a.Report.Results[0]));

        Assert.Contains("measured: a.json 5 runs × 10 s; b.json 5 runs × 10 s", table);
        Assert.Equal(["requests/s", "101", "202 (+100.00%) ✓ [1.941–2.092×]"], Row(table, "requests/s"));
        Assert.Equal(["throughput (MiB/s)", "101", "202 (+100.00%) ✓ [1.941–2.092×]"], Row(table, "throughput (MiB/s)"));
        Assert.Equal(["server CPU (s/GiB)", "0.500", "1.01 (+102.00%) ✗ [1.923–2.080×]"], Row(table, "server CPU (s/GiB)"));

        // The legend says how these marks were drawn; no single-run floors, no advice to repeat.
        Assert.Contains("5 or more runs a side: requests/s, MiB/s, latency p50, p99 and CPU/GiB are marked when the 95% interval of the ratio to the first column", text, StringComparison.Ordinal);
        Assert.DoesNotContain("--runs 5", text, StringComparison.Ordinal);
    }

    [Fact]
    public void CompareFiles_FourRunsEach_TooFewForAnIntervalOverRuns_JudgedAsSingleRunsAndToldToRunFive()
    {
        // Simulated A/A, an interval over 3 runs a side held 1 in 89 % of draws: runs below 5 fall back to the single-run rule.
        var a = Source("a.json", RunsRow([100, 104, 98, 102]));
        var b = Source("b.json", RunsRow([200, 205, 198, 210]));

        var text = CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n");

        Assert.DoesNotContain("✓ [", text, StringComparison.Ordinal);
        Assert.Contains("--runs 5", text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(50, "≈")]
    [InlineData(2000, "✓ [")]
    public void CompareFiles_FiveRunsEach_P99FromTheRunsOnlyWithAThousandResponsesARun(int responsesPerRun, string mark)
    {
        // p99 -20 % in every run, steady: an interval over runs excludes 1, but over ~50 responses a run a p99 is the run's slowest.
        ScenarioResult P99Row(double p99Milliseconds)
        {
            var row = RunsRow([100, 104, 98, 102, 101]);
            row.Transfers = responsesPerRun * 5;
            row.LatencySeconds = new Percentiles(row.LatencySeconds!.P50, row.LatencySeconds.P75, row.LatencySeconds.P90, p99Milliseconds / 1000, row.LatencySeconds.Max)
            {
                P99Runs = [.. new[] { 1.0, 1.02, 0.99, 1.01, 1.0 }.Select(f => f * p99Milliseconds / 1000)],
            };
            return row;
        }

        var text = CompareReport.CompareFiles([Source("a.json", P99Row(100)), Source("b.json", P99Row(80))]).ReplaceLineEndings("\n");
        var table = Table(text, "load/put — " + CompareKey.LabelOf(P99Row(100)));

        Assert.Contains(mark, Row(table, "latency p99 (ms)")[2], StringComparison.Ordinal);
    }

    [Fact]
    public void CompareFiles_FiveRunsEach_RunsSpreadHoldsOne_IsNoClearDifference()
    {
        // +10% between the medians, but each side's runs spread ±25%: the interval holds 1.
        var a = Source("a.json", RunsRow([100, 150, 80, 120, 95]));
        var b = Source("b.json", RunsRow([110, 90, 140, 100, 130]));

        var table = Table(CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n"), "load/put — " + CompareKey.LabelOf(a.Report.Results[0]));

        Assert.Matches(@"^110 \(\+10\.00%\) ≈ \[0\.[0-9]+–1\.[0-9]+×\]$", Row(table, "requests/s")[2]);
    }

    [Fact]
    public void CompareFiles_FiveRunsEach_IntervalExcludesOneButChangeUnderNoise_IsNoClearDifference()
    {
        var a = Source("a.json", RunsRow([100, 100.1, 99.9, 100, 100.05]));
        var b = Source("b.json", RunsRow([103, 103.1, 102.9, 103, 103.05]));

        var table = Table(CompareReport.CompareFiles([a, b], noisePercent: 5).ReplaceLineEndings("\n"), "load/put — " + CompareKey.LabelOf(a.Report.Results[0]));

        Assert.StartsWith("103 (+3.00%) ≈ [1.02", Row(table, "requests/s")[2], StringComparison.Ordinal);
    }

    [Fact]
    public void CompareFiles_FiveRunsAgainstOne_SingleRunsRuleAndTheAdviceToRepeat()
    {
        // The same doubling as above, but one side is a single run: no interval over runs, the single runs' floor (600%) holds.
        var a = Source("a.json", RunsRow([100, 104, 98, 102, 101]));
        var b = Source("b.json", LoadRow("http://127.0.0.1:5080/x", [200, 200, 200, 200, 200, 200, 200, 200, 200, 200]));

        var text = CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n");
        var table = Table(text, "load/put — " + CompareKey.LabelOf(a.Report.Results[0]));

        Assert.Contains("measured: a.json 5 runs × 10 s; b.json 1 run, 10 s", table);
        Assert.Equal(["requests/s", "101", "200 (+98.02%) ≈"], Row(table, "requests/s"));
        Assert.Contains("Measure each side with freight load --runs 5 for marks from the spread over runs", text, StringComparison.Ordinal);
        Assert.DoesNotContain("3 or more runs a side", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareOutput_OverAnEarlierComparison_ReplacedWholeNotWrittenInPlace()
    {
        var directory = Directory.CreateTempSubdirectory("freight-compare-output-").FullName;
        try
        {
            var a = Path.Combine(directory, "a.json");
            var b = Path.Combine(directory, "b.json");
            var output = Path.Combine(directory, "compare.txt");
            await File.WriteAllTextAsync(a, System.Text.Json.JsonSerializer.Serialize(Source("a.json", RunsRow([100, 104, 98, 102, 101])).Report, BenchReport.JsonOptions));
            await File.WriteAllTextAsync(b, System.Text.Json.JsonSerializer.Serialize(Source("b.json", RunsRow([200, 205, 198, 210, 202])).Report, BenchReport.JsonOptions));
            await File.WriteAllTextAsync(output, "the earlier comparison");

            // A reader that holds the earlier file open keeps it whole: the new tables go into a new file renamed over it.
            await using var earlier = new FileStream(output, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            using var console = new StringWriter();
            using var errors = new StringWriter();

            var exit = await CompareCommand.RunAsync([a, b, "--output", output], console, errors);

            Assert.True(exit == 0, errors.ToString());
            Assert.Contains("requests/s", await File.ReadAllTextAsync(output), StringComparison.Ordinal);
            using var reader = new StreamReader(earlier);
            Assert.Equal("the earlier comparison", await reader.ReadToEndAsync());
            Assert.Empty(Directory.GetFiles(directory, ".freight-*"));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static async Task<List<CompareSource>> FixturesAsync(params string[] names)
    {
        var sources = new List<CompareSource>();
        foreach (var name in names)
        {
            var (report, error) = await CompareCommand.LoadAsync(Path.Combine(AppContext.BaseDirectory, "Reports", "Fixtures", name));
            Assert.True(report is not null, error);
            sources.Add(new CompareSource(name, report));
        }

        return sources;
    }

    /// <summary>A <c>freight load --runs N</c> row: one run's figures per value of <paramref name="requestsPerSecond"/>, 10 s each.</summary>
    internal static ScenarioResult RunsRow(double[] requestsPerSecond, double[]? serverCost = null)
    {
        var row = LoadRow("http://127.0.0.1:5080/x", [.. Enumerable.Repeat(100.0, 10 * requestsPerSecond.Length)]);
        row.Runs = requestsPerSecond.Length;
        row.RequestsPerSecond = Summary.OfRuns(requestsPerSecond);
        row.BytesPerSecond = Summary.OfRuns([.. requestsPerSecond.Select(r => r * (1 << 20))]);
        if (serverCost is not null)
        {
            row.Server = new SideCost(Summary.OfRuns(serverCost)!.Median) { CpuSecondsPerGiBSamples = serverCost };
        }

        return row;
    }

    /// <summary>A <c>freight load</c> row: a 1 MiB PUT at 8 connections for 10 s, with one series point per value of <paramref name="completions"/>.</summary>
    internal static ScenarioResult LoadRow(string url, double[] completions, double p50Milliseconds = 2, double? requestsPerSecond = null)
    {
        var perSecond = requestsPerSecond ?? completions.Average();
        const long Payload = 1 << 20;
        return new ScenarioResult
        {
            Scenario = "load/put",
            Suite = "load",
            Parameters = new ScenarioParameters
            {
                Url = url,
                Method = "PUT",
                Scheme = "http",
                Protocol = "http/1.1",
                Connections = 8,
                Mode = "closed-loop",
                Transport = "raw-http11",
                BodySource = "payload",
                Verify = "digest-fields",
                PayloadBytes = Payload,
                DurationSeconds = 10,
            },
            Runs = 1,
            Verified = true,
            RequestsPerSecond = Summary.OfRuns([perSecond]),
            BytesPerSecond = Summary.OfRuns([perSecond * Payload]),
            LatencySeconds = new Percentiles(p50Milliseconds / 1000, p50Milliseconds / 1000, p50Milliseconds / 1000, p50Milliseconds / 1000, p50Milliseconds / 1000),
            Series = [.. completions.Select((c, i) => new SeriesPoint(i, 8, (long)c, 0, p50Milliseconds / 1000, p50Milliseconds / 1000, null, null, null, null))],
            BadResponses = 0,
            SocketErrors = 0,
        };
    }

    internal static CompareSource Source(string name, params ScenarioResult[] rows) => new(name, new BenchReport
    {
        Machine = new MachineInfo(2, "linux", ".NET 10", "test"),
        Settings = new BenchSettings(["load"], false, 1, 10, 0, 0, false, rows[0].Parameters.Url ?? ""),
        Verified = true,
        Results = [.. rows],
    });

    /// <summary>The lines of the plain-text table under <paramref name="title"/>: title, notes, header, dashes, rows.</summary>
    internal static string[] Table(string text, string title)
    {
        var block = text.Split("\n\n").SingleOrDefault(b => b.StartsWith(title + "\n", StringComparison.Ordinal));
        Assert.True(block is not null, $"no table '{title}' in:\n{text}");
        return block.Split('\n');
    }

    internal static string[] Row(string[] table, string metric) =>
        Columns(Assert.Single(table, l => l.StartsWith(metric + "  ", StringComparison.Ordinal)));

    // Columns are two or more spaces apart; a cell has single spaces only.
    internal static string[] Columns(string line) => Regex.Split(line.Trim(), @"\s{2,}");
}
