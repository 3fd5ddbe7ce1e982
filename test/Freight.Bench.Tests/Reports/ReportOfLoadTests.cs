using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// <c>freight report</c> of a <c>freight load</c> result: what load is for (the verdict, each side's CPU per GiB, the
/// failures by kind) in the report, the payload a GET moved, and the parameters said once rather than in every heading.
/// </summary>
public sealed class ReportOfLoadTests
{
    [Fact]
    public async Task Markdown_LoadResult_HasVerdictCostsPerGiBAndFailures()
    {
        var markdown = MarkdownReportWriter.Render(ReportBuilder.Build([await FixtureAsync("load-aa-1.json")])).ReplaceLineEndings("\n");

        // load-aa-1.json: a 4 KiB GET at 8 connections, freight serve sampled; costs 11.468 (server) and 5.405 (client) s/GiB.
        Assert.Contains("| verdict | neither |\n", markdown, StringComparison.Ordinal);
        Assert.Contains("| why | neither side saturated — network or latency bound: client 31 % of a core, server 66 % |\n", markdown, StringComparison.Ordinal);
        Assert.Contains("| server CPU (s/GiB) | 11.5 |\n", markdown, StringComparison.Ordinal);
        Assert.Contains("| client CPU (s/GiB) | 5.40 |\n", markdown, StringComparison.Ordinal);
        Assert.Contains("| failures | none |\n", markdown, StringComparison.Ordinal);
        Assert.Contains("| responses | 151,553 (200×151,553) |\n", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public void Markdown_LoadResultWithFailures_ListsThemByKindWithTheFirst()
    {
        var row = LoadCompareTests.LoadRow("http://127.0.0.1:5080/x", [100, 100, 100, 100]);
        row.Failures = new() { ["status"] = 5, ["reset"] = 2 };
        row.FirstFailure = new FailureReason("unexpected_status", "status 401, expected 200");
        row.Verified = false;

        var markdown = MarkdownReportWriter.Render(ReportBuilder.Build([LoadCompareTests.Source("x.json", row)])).ReplaceLineEndings("\n");

        Assert.Contains("| failures | status 5, reset 2 — first: status 401, expected 200 |\n", markdown, StringComparison.Ordinal);

        // Without --server-pid there is no server side, and a run under 64 MiB no cost per GiB: said, not left blank.
        Assert.Contains("| server CPU (s/GiB) | – (no --server-pid) |\n", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public void Markdown_LoadGetOf25MB_PayloadIsTheResponseSize()
    {
        var row = LoadCompareTests.LoadRow("http://127.0.0.1:5080/files/big.bin", [50, 50, 50, 50]);
        row.Parameters.PayloadBytes = null;
        row.Parameters.Method = "GET";
        row.BytesPerSecond = Summary.OfRuns([50 * 25_000_000.0]);

        var markdown = MarkdownReportWriter.Render(ReportBuilder.Build([LoadCompareTests.Source("big.json", row)])).ReplaceLineEndings("\n");

        Assert.Contains("| payload | 23.8 MiB a response |\n", markdown, StringComparison.Ordinal);
        Assert.DoesNotContain("| payload | 0 KiB |", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Markdown_LoadResult_ParametersOnceNotInHeadings()
    {
        var markdown = MarkdownReportWriter.Render(ReportBuilder.Build([await FixtureAsync("load-aa-1.json")])).ReplaceLineEndings("\n");

        var headings = markdown.Split('\n').Where(l => l.StartsWith('#')).ToArray();
        Assert.Contains("### latency percentiles (ms)", headings);
        Assert.All(headings, heading => Assert.DoesNotContain("url", heading, StringComparison.Ordinal));
        Assert.Contains("| url | http://127.0.0.1:46321/files/small.bin |\n", markdown, StringComparison.Ordinal);
        Assert.Contains("| connections | 8 |\n", markdown, StringComparison.Ordinal);
        Assert.DoesNotContain("bodySource=none", markdown, StringComparison.Ordinal);
    }

    private static async Task<CompareSource> FixtureAsync(string name)
    {
        var (report, error) = await CompareCommand.LoadAsync(Path.Combine(AppContext.BaseDirectory, "Reports", "Fixtures", name));
        Assert.True(report is not null, error);
        return new CompareSource(name, report);
    }
}
