using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Results;
using Freight.Bench.Suites.Static;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Tests.Reports;

/// <summary>What the report holds for the fixture (Fixtures/report.json) and for hand-built results: charts, bars, tables, escaping.</summary>
public sealed class ReportBuilderTests
{
    /// <summary>Every chart of the fixture's report and its data points, worked out from report.json by hand.</summary>
    public static readonly IReadOnlyDictionary<string, int> FixtureCharts = new Dictionary<string, int>
    {
        // 4 verified rows (the failed upload/freight draws nothing) + 2 published figures (D1, U2).
        ["transfer-throughput"] = 6,
        ["files-throughput"] = 2,

        // 3 rows + study 4's baseline and change (89,248 and 101,902 req/s).
        ["static-requests-s"] = 5,

        // 3 scenarios × p50, p75, p90, p99, p99.9, max.
        ["static-latency-4-kib-256-conns"] = 18,

        // The ramp's 2 rows + their 2 published figures (57 s, 1 s); the engine check's 2 rows in requests/s.
        ["threads-latency-max-1-6-conns-over-6-s-1000-ms"] = 4,
        ["threads-requests-s-32-conns-5-s"] = 2,
        ["threads-latency-1-6-conns-over-6-s-1000-ms"] = 12,

        // peer/wrk has requests/s but no percentiles: load/ping alone.
        ["threads-latency-32-conns-5-s"] = 6,

        // 6 seconds each; sleep has no p99 in seconds 0 and 3 (nothing completed), delay none in second 0;
        // delay's last second has no thread pool sample.
        ["threads-responses-per-second-1-6-conns-over-6-s-1000-ms"] = 12,
        ["threads-p99-latency-per-second-1-6-conns-over-6-s-1000-ms"] = 9,
        ["threads-thread-pool-threads-1-6-conns-over-6-s-1000-ms"] = 11,
        ["threads-server-cpu-1-6-conns-over-6-s-1000-ms"] = 12,
    };

    [Fact]
    public async Task Build_Fixture_ChartPerStudyGroupLoadGroupAndSeries()
    {
        var model = ReportBuilder.Build([await ReportFixture.LoadAsync()]);

        Assert.Equal(FixtureCharts, model.Charts.ToDictionary(c => c.Id, c => c.PointCount));
        Assert.Equal(["runs", "transfer", "files", "static", "threads", "ratios"], model.Sections.Select(s => s.Id));
    }

    [Fact]
    public async Task Build_Fixture_EveryChartHasItsTableWithItsNumbers()
    {
        var model = ReportBuilder.Build([await ReportFixture.LoadAsync()]);

        foreach (var figure in model.Sections.SelectMany(s => s.Figures).Where(f => f.Chart is not null))
        {
            var table = figure.Table;
            Assert.Equal(table.Id, figure.Chart!.Id);
            var numbers = table.Rows.SelectMany(r => r).Select(c => c.Value).OfType<double>().ToHashSet();
            switch (figure.Chart)
            {
                case BarChart bars:
                    // A row per scenario, drawn or not (a failed row says NO); every bar's value in it.
                    Assert.All(bars.Bars, b => Assert.Contains(b.Value, numbers));
                    Assert.Equal(bars.Bars.Where(b => b.Kind != BarKind.Published).Select(b => b.Category), table.Rows.Where(r => r.Any(c => c.Value is not null)).Select(r => $"{r[0].Text} — {r[1].Text}"));
                    break;
                case LineChart { XLabels: { } labels } curves:
                    // A row per scenario, a column per percentile.
                    Assert.Equal(curves.Series.Select(s => s.Name), table.Rows.Select(r => r[0].Text));
                    Assert.All(curves.Series.SelectMany(s => s.Points), p => Assert.Contains(p.Y, numbers));
                    Assert.Equal(labels, table.Headers.Skip(1).Take(labels.Count));
                    break;
                case LineChart series:
                    // A row per second, a column per scenario: every point at its second and scenario.
                    foreach (var (line, column) in series.Series.Select((s, i) => (s, i + 1)))
                    {
                        Assert.Equal(line.Name, table.Headers[column]);
                        Assert.All(line.Points, p => Assert.Equal(p.Y, table.Rows.Single(r => r[0].Value == p.X)[column].Value));
                    }

                    break;
            }
        }

        Assert.Equal(5, model.Tables.Single(t => t.Id == "transfer-throughput").Rows.Count);
    }

    [Fact]
    public async Task Build_Fixture_BarsAreOursPeersReferenceAndPublishedBesideTheirRow()
    {
        var model = ReportBuilder.Build([await ReportFixture.LoadAsync()]);
        var transfer = Assert.IsType<BarChart>(model.Charts.Single(c => c.Id == "transfer-throughput"));
        var files = Assert.IsType<BarChart>(model.Charts.Single(c => c.Id == "files-throughput"));

        Assert.Equal(
            [
                ("tcp/loopback — tcp 1024K", BarKind.Reference),
                ("download/stream-4k — http h1 memory 64K", BarKind.Ours),
                ("download/stream-4k — http h1 memory 64K", BarKind.Published),
                ("upload/multipart-reader — http h1 memory 64K", BarKind.Ours),
                ("upload/multipart-reader — http h1 memory 64K", BarKind.Published),
                ("download/freight — http h1 memory 64K", BarKind.Ours),
            ],
            transfer.Bars.Select(b => (b.Category, b.Kind)));
        Assert.Equal(140, transfer.Bars[2].Value);
        Assert.Equal("D1, study 1", transfer.Bars[2].Note);
        Assert.Equal("MiB/s", transfer.Unit);
        Assert.Equal([BarKind.Ours, BarKind.Peer], files.Bars.Select(b => b.Kind));
    }

    [Fact]
    public async Task Build_Fixture_FailedRowHasNoFiguresAndSaysWhy()
    {
        var model = ReportBuilder.Build([await ReportFixture.LoadAsync()]);
        var table = model.Tables.Single(t => t.Id == "transfer-throughput");

        var row = table.Rows.Single(r => r[0].Text == "upload/freight");

        Assert.Equal("NO", Cell(table, row, "verified").Text);
        Assert.Null(Cell(table, row, "throughput (MiB/s)").Value);
        Assert.StartsWith("the server stored 20,971,519 bytes", Cell(table, row, "error").Text, StringComparison.Ordinal);
    }

    [Fact]
    public void Build_PublishedInAnotherUnit_NotDrawnButNamedInTable()
    {
        var row = Row("upload/raw-stream", "http h1 memory 4K", bytesPerSecond: 200 * 1024 * 1024, published: new PublishedFigure(4, "s", 2, "J2"));

        var model = ReportBuilder.Build([Source("run.json", row)]);

        var chart = Assert.IsType<BarChart>(Assert.Single(model.Charts));
        Assert.Equal([BarKind.Ours], chart.Bars.Select(b => b.Kind));
        var table = model.Tables.Single(t => t.Id == chart.Id);
        Assert.Equal("4 s: J2, study 2", Cell(table, table.Rows[0], "published figure").Text);
        Assert.Equal("", Cell(table, table.Rows[0], "ours / published").Text);
    }

    [Fact]
    public void Build_NoPublishedFigure_TableHasNoPublishedColumns()
    {
        var model = ReportBuilder.Build([Source("run.json", Row("download/freight", "http h1", bytesPerSecond: 1e9))]);

        Assert.Equal(["scenario", "parameters", "throughput (MiB/s)", "min", "max", "verified"], model.Tables.Single(t => t.Id == "transfer-throughput").Headers);
    }

    [Fact]
    public void RenderHtml_ScenarioAndLabelWithMarkup_AreEncodedEverywhere()
    {
        var row = Row("x/<script>alert(1)</script>", "\"a\" & 'b' <i>", bytesPerSecond: 1e9);

        var html = HtmlReport.Render([Source("<evil>.json", row)]);

        Assert.DoesNotContain("<script>", html, StringComparison.Ordinal);
        Assert.DoesNotContain("<i>", html, StringComparison.Ordinal);
        Assert.DoesNotContain("<evil>", html, StringComparison.Ordinal);
        Assert.Contains("<th scope=\"row\">x/&lt;script&gt;alert(1)&lt;/script&gt;</th>", html, StringComparison.Ordinal);
        Assert.Contains("data-category=\"x/&lt;script&gt;alert(1)&lt;/script&gt; — &quot;a&quot; &amp; &#39;b&#39; &lt;i&gt;\"", html, StringComparison.Ordinal);
        Assert.Contains("&lt;evil&gt;.json", html, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RenderHtml_Fixture_SelfContainedWithTitledChartsAndTheirTables()
    {
        var html = HtmlReport.Render([await ReportFixture.LoadAsync()]);

        Assert.StartsWith("<!DOCTYPE html>", html, StringComparison.Ordinal);
        Assert.Contains("default-src 'none'", html, StringComparison.Ordinal);
        Assert.DoesNotContain("<script", html, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("http://", html.Replace("http://www.w3.org/2000/svg", "", StringComparison.Ordinal), StringComparison.Ordinal);
        Assert.DoesNotContain("https://", html, StringComparison.Ordinal);
        foreach (var (id, points) in FixtureCharts)
        {
            Assert.Contains($"data-chart=\"{id}\"", html, StringComparison.Ordinal);
            Assert.Contains($"<title id=\"{id}-title\">", html, StringComparison.Ordinal);
            Assert.Contains($"<table id=\"table-{id}\" data-table=\"{id}\">", html, StringComparison.Ordinal);
        }

        foreach (var scenario in ReportFixture.Scenarios)
        {
            Assert.Contains($"<th scope=\"row\">{scenario}</th>", html, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Build_SeveralFiles_CompareTablesAsFreightCompareAndAFileNameOnEachSection()
    {
        var fixtures = Path.Combine(AppContext.BaseDirectory, "Reports", "Fixtures");
        var model = ReportBuilder.Build([await ReportFixture.LoadAsync(Path.Combine(fixtures, "base.json")), await ReportFixture.LoadAsync(Path.Combine(fixtures, "new.json"))]);

        var compare = model.Sections[^1];
        Assert.Equal("compare", compare.Title);
        var load = compare.Figures.Select(f => f.Table).Single(t => t.Title == "load/ping — 32 conns");
        Assert.Equal(["metric", "base.json", "new.json"], load.Headers);
        Assert.Equal(["requests/s", "89,248", "101,902 (+14.18%) ✓"], load.Rows.Single(r => r[0].Text == "requests/s").Select(c => c.Text));
        Assert.Contains(compare.Notes, n => n.StartsWith("only in base.json: upload/iformfile", StringComparison.Ordinal));
        Assert.StartsWith(CompareReport.Better + " better", compare.Notes[^1], StringComparison.Ordinal);
        Assert.Equal(["", "base.json", "new.json"], model.Tables.First().Headers);
        Assert.Contains(model.Sections, s => s.Title.StartsWith("new.json: transfer", StringComparison.Ordinal));
        Assert.Contains(model.Tables, t => t.Id == "new-transfer-throughput");
    }

    [Fact]
    public void Build_StaticRowsWithSeries_TimeSeriesChartsPerGroupAndNoneForWrk()
    {
        SeriesPoint Point(int second, long completions, int? threads) => new(second, 32, completions, 0, 0.0004, 0.002, threads, 0, 80, 40);
        ScenarioResult Static(string scenario, string label, List<SeriesPoint>? series) => new()
        {
            Scenario = scenario,
            Suite = StaticSuite.Name,
            Parameters = new ScenarioParameters { Label = label, FileBytes = 4096, Connections = 32 },
            Runs = 2,
            Verified = true,
            RequestsPerSecond = new Summary(20_000, 19_000, 21_000),
            LatencySeconds = new Percentiles(0.0004, 0.0006, 0.001, 0.002, 0.01),
            Series = series,
        };
        var source = Source(
            "static.json",
            Static(StaticSuite.StaticFiles, "4 KiB, 32 conns", [Point(0, 19_000, 9), Point(1, 21_000, null)]),
            Static(StaticSuite.Freight, "4 KiB, 32 conns", [Point(0, 20_000, 8), Point(1, 22_000, 8)]),
            Static(StaticSuite.Freight, "4 KiB, 32 conns, wrk", null));

        var model = ReportBuilder.Build([source]);
        var html = HtmlReport.Render([source]);

        // 2 rows × 2 seconds; staticfiles' second second has no server sample.
        var timelines = model.Charts.Where(c => c.Id.Contains("per-second", StringComparison.Ordinal) || c.Id.Contains("thread-pool", StringComparison.Ordinal) || c.Id.Contains("server-cpu", StringComparison.Ordinal));
        Assert.Equal(
            new Dictionary<string, int>
            {
                ["static-responses-per-second-4-kib-32-conns"] = 4,
                ["static-p99-latency-per-second-4-kib-32-conns"] = 4,
                ["static-thread-pool-threads-4-kib-32-conns"] = 3,
                ["static-server-cpu-4-kib-32-conns"] = 4,
            },
            timelines.ToDictionary(c => c.Id, c => c.PointCount));
        Assert.Contains("data-chart=\"static-responses-per-second-4-kib-32-conns\"", html, StringComparison.Ordinal);
        Assert.DoesNotContain("responses-per-second-4-kib-32-conns-wrk", html, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WriteAsync_NoHtmlPath_WritesBesideTheResultFile()
    {
        var directory = Path.Combine(Path.GetTempPath(), $"freight-report-test-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        try
        {
            var json = Path.Combine(directory, "bench-1.json");
            File.Copy(ReportFixture.ResultPath, json);

            var written = await HtmlReport.WriteAsync(json);

            Assert.Equal(Path.Combine(directory, "bench-1.html"), written);
            Assert.Contains("data-chart=\"transfer-throughput\"", await File.ReadAllTextAsync(written), StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task WriteAsync_MissingResultFile_ThrowsNamingIt()
    {
        var error = await Assert.ThrowsAsync<InvalidDataException>(() => HtmlReport.WriteAsync("missing-result.json", Path.Combine(Path.GetTempPath(), "never.html")));

        Assert.Equal("missing-result.json: file not found", error.Message);
    }

    [Fact]
    public void Build_SeveralRunsOfAGoal_JudgesItAcrossTheRuns()
    {
        // Each run alone is inconclusive against 1.2× (its pairs' logs are its own ± 0.2: ±0.50 in log terms at 3 pairs);
        // across the runs (ln 0.00, 0.05, 0.10: mean 0.05, s 0.05, t(0.975, 2) 4.303) the interval is e^(0.05 ± 0.1242)
        // = 0.929–1.190: wholly under 1.2×, MISSED.
        const string Goal = "freight / nginx req/s, 128 KiB, 32 conns";
        var runs = new[] { 0.00, 0.05, 0.10 }.Select((log, i) =>
        {
            var source = Source($"run{i + 1}.json");
            source.Report.Ratios.Add(new RatioResult(Goal, "static/freight", "peer/nginx", Math.Exp(log), Goal: 1.2)
                .WithRuns([Math.Exp(log + 0.2) * 100, Math.Exp(log - 0.2) * 80, Math.Exp(log) * 120], [100, 80, 120]));
            // A goal only the first run measured, and one no run has a figure for: neither is judged across runs.
            source.Report.Ratios.Add(new RatioResult(i == 0 ? "once" : "never", "a", "b", i == 0 ? 1.0 : null, Goal: 1.0));
            return source;
        }).ToList();

        var section = ReportBuilder.Build(runs).Sections.Single(s => s.Id == "goals-across-runs");

        var table = section.Figures.Single().Table;
        var row = Assert.Single(table.Rows);
        Assert.Equal(Goal + " ≥ 1.2×", Cell(table, row, "goal").Text);
        Assert.Equal(3, Cell(table, row, "runs").Value);
        Assert.Equal(Math.Exp(0.05), Cell(table, row, "across runs").Value!.Value, 9);
        var half = 4.303 * 0.05 / Math.Sqrt(3);
        Assert.Equal($"{ReportNumber.Format(Math.Exp(0.05 - half))}–{ReportNumber.Format(Math.Exp(0.05 + half))}×", Cell(table, row, "95% interval").Text);
        Assert.Equal("MISSED", Cell(table, row, "verdict").Text);
        Assert.Equal("0 / 0 / 3", Cell(table, row, "each run: met / MISSED / inconclusive").Text);
    }

    [Fact]
    public void Build_OneFile_NoGoalsAcrossRuns()
    {
        var source = Source("run.json");
        source.Report.Ratios.Add(new RatioResult("g", "a", "b", 1.1, Goal: 1.0).WithRuns([110, 220, 330], [100, 200, 300]));

        Assert.DoesNotContain(ReportBuilder.Build([source]).Sections, s => s.Id == "goals-across-runs");
    }

    private static ReportCell Cell(ReportTable table, IReadOnlyList<ReportCell> row, string header)
    {
        var column = table.Headers.ToList().IndexOf(header);
        Assert.True(column >= 0, $"{table.Id} has no column '{header}': {string.Join(", ", table.Headers)}");
        return row[column];
    }

    private static CompareSource Source(string name, params ScenarioResult[] results) => new(name, new BenchReport
    {
        Machine = new MachineInfo(2, "Linux", ".NET 10", "cpu"),
        Settings = new BenchSettings(["transfer"], Quick: true, Runs: 1, RunSeconds: 1, WarmupSeconds: 0, PayloadBytes: 1 << 20, CpuAffinity: false, Target: "embedded"),
        Verified = true,
        Results = [.. results],
    });

    private static ScenarioResult Row(string scenario, string label, double bytesPerSecond, PublishedFigure? published = null) => new()
    {
        Scenario = scenario,
        Parameters = new ScenarioParameters { Label = label },
        Runs = 1,
        Verified = true,
        BytesPerSecond = new Summary(bytesPerSecond, bytesPerSecond, bytesPerSecond),
        Published = published,
    };
}
