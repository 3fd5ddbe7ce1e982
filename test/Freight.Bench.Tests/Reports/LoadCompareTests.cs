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
    public void CompareFiles_SingleRowsDifferingInTwoParameters_StillListedApart()
    {
        var a = Source("a.json", LoadRow("http://127.0.0.1:5080/a", [100, 100, 100, 100]));
        var other = LoadRow("http://127.0.0.1:5080/b", [100, 100, 100, 100]);
        other.Parameters.Connections = 64;
        var b = Source("b.json", other);

        var text = CompareReport.CompareFiles([a, b]).ReplaceLineEndings("\n");

        Assert.Contains(CompareReport.NoCommonScenario, text, StringComparison.Ordinal);
        Assert.Contains("only in a.json: load/put", text, StringComparison.Ordinal);
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
        larger.Server = new SideCost(0.75);
        larger.Counters = new ServerCounters { CpuPercent = 50, Gen2Collections = 0, Gen0Collections = 12 };

        var text = CompareReport.CompareFiles([Source("a.json", baseRow), Source("b.json", smaller), Source("c.json", larger)]).ReplaceLineEndings("\n");
        var table = Table(text, "load/put — " + CompareKey.LabelOf(baseRow));

        // -10.2% server CPU/GiB is inside the 35% two runs of one command differed by; +50% is beyond it. Gen 2 0 → 1 is
        // within two counts' spread (2√1); gen 0 10 → 80 is +700%, beyond the 600% floor and 2√90.
        Assert.Equal(["server CPU (s/GiB)", "0.500", "0.449 (-10.20%) ≈", "0.750 (+50.00%) ✗"], Row(table, "server CPU (s/GiB)"));
        Assert.Equal(["gen 2 GCs", "0", "1 (+1) ≈", "0 (+0) ≈"], Row(table, "gen 2 GCs"));
        Assert.Equal(["gen 0 GCs", "10", "80 (+700.00%) ✗", "12 (+20.00%) ≈"], Row(table, "gen 0 GCs"));

        // --noise raises the floors, never lowers them.
        var noisy = Table(CompareReport.CompareFiles([Source("a.json", baseRow), Source("c.json", larger)], noisePercent: 60).ReplaceLineEndings("\n"), "load/put — " + CompareKey.LabelOf(baseRow));
        Assert.Equal(["server CPU (s/GiB)", "0.500", "0.750 (+50.00%) ≈"], Row(noisy, "server CPU (s/GiB)"));
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
