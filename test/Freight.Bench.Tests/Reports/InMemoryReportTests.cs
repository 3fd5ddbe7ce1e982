using System.Text.Json;
using Freight.Bench.Measure;
using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Results;
using Freight.Bench.Tests.Suites;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// <c>freight bench</c> writes its HTML report from the report it holds in memory, not by reading its result file back:
/// the page must be the one <c>freight report</c> makes of that file, character for character.
/// </summary>
public sealed class InMemoryReportTests
{
    [Fact]
    public async Task WriteAsync_InMemoryReport_SameHtmlAsFromItsResultFile()
    {
        var report = Report();
        var directory = ReportFixture.ArtifactsDirectory("in-memory-report");
        var json = Path.Combine(directory, "bench-20261125-040000.json");
        await using (var file = File.Create(json))
        {
            await JsonSerializer.SerializeAsync(file, report, BenchReport.JsonOptions);
        }

        var fromMemory = await HtmlReport.WriteAsync(report, Path.GetFileName(json), Path.Combine(directory, "from-memory.html"));
        var fromFile = await HtmlReport.WriteAsync(json, Path.Combine(directory, "from-file.html"));

        var page = await File.ReadAllTextAsync(fromMemory);
        Assert.Equal(await File.ReadAllTextAsync(fromFile), page);
        Assert.Contains("bench-20261125-040000.json", page, StringComparison.Ordinal);
        Assert.Contains("data-chart=\"transfer-throughput\"", page, StringComparison.Ordinal);
    }

    /// <summary>
    /// A run as the bench holds it: every suite's rows from fixed runs (SummarizeGoldenTests), ratios with their
    /// intervals and the rows they came from (fields the result file does not keep), and a suite check.
    /// </summary>
    private static BenchReport Report()
    {
        var rows = SummarizeGoldenTests.Rows().Select(r => r.Row).ToList();
        var upload = rows.First(r => r.Scenario == "upload/freight");
        var probe = rows.First(r => r.Scenario == "tcp/loopback");
        var download = rows.First(r => r.Scenario == "download/freight#a");
        var ratios = new List<RatioResult>
        {
            new RatioResult("upload-freight / tcp ceiling", "upload/freight", "tcp/loopback", upload.BytesPerSecond!.Median / probe.BytesPerSecond!.Median, Goal: 0.5)
                .WithRuns(upload, probe, r => r.BytesPerSecond)
                .WithStop(AdaptiveStop.Off),
            CostRatio.ServerCpu("server CPU s/GiB: upload / download", "upload/freight", "download/freight#a", upload, download, 1.0),
            new RatioResult("delay: p99 / the 1 s wait", "threads/delay p99", "1 s", rows.First(r => r.Scenario == "threads/delay").LatencySeconds?.P99, Published: 1, Goal: 1.1, LowerIsBetter: true),
        };
        var report = new BenchReport
        {
            StartedAt = new DateTimeOffset(2026, 11, 25, 4, 0, 0, TimeSpan.Zero).AddTicks(1_234_567),
            Machine = new MachineInfo(2, "Linux 6.8", ".NET 10.0.0", "a test processor"),
            Measures = new MeasuresOffered(true, false, "perf stat: not installed"),
            Settings = new BenchSettings(["transfer", "files", "json", "static", "threads", "tus"], false, 3, 1, 0.5, 20L << 20, false, "embedded"),
            Verified = false,
            Results = rows,
            Ratios = ratios,
        };
        report.SuiteChecks.Add(SuiteCheck.Of("transfer", ratios, AdaptiveStop.Conclusive, 3, 60));
        return report;
    }
}
