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
    public async Task Markdown_LoadResultWithoutAProxy_HasNoProxyRows()
    {
        var markdown = MarkdownReportWriter.Render(ReportBuilder.Build([await FixtureAsync("load-aa-1.json")])).ReplaceLineEndings("\n");

        Assert.DoesNotContain("| proxy", markdown, StringComparison.Ordinal);
    }

    /// <summary>
    /// <c>freight load --through-proxy</c>: the proxy's CPU per GiB and per response beside the server's, and what they are
    /// of (its processes, their share of the cores, resident set, threads); a column without a proxy says so.
    /// </summary>
    [Fact]
    public void Markdown_LoadResultsThroughAProxy_ProxysCostsBesideTheServers()
    {
        var proxied = LoadCompareTests.LoadRow("http://127.0.0.1:18480/files/big.bin", [100, 100, 100, 100]);
        proxied.Server = new SideCost(0.437, CpuSecondsPerResponse: 0.0002);
        proxied.Blame = new LoadBlame("neither", "neither side saturated", 0.34, 0.32, 2, 24698)
        {
            Proxy = new LoadProxy(24884, 0.82, 2)
            {
                WorkerProcessIds = [24886, 24887],
                CpuSecondsPerGiB = 1.11,
                CpuSecondsPerResponse = 0.0005,
                WorkingSetBytesMax = (long)(15.8 * 1024 * 1024),
                ThreadsMax = 3,
            },
        };
        var direct = LoadCompareTests.LoadRow("http://127.0.0.1:15180/files/big.bin", [100, 100, 100, 100]);
        direct.Server = new SideCost(0.41);
        direct.Blame = new LoadBlame("neither", "neither side saturated", 0.3, 0.3, 2, 24698);

        var markdown = MarkdownReportWriter.Render(ReportBuilder.Build([LoadCompareTests.Source("proxied.json", proxied, direct)])).ReplaceLineEndings("\n");

        Assert.Contains("| server CPU (s/GiB) | 0.437 | 0.410 |\n| proxy CPU (s/GiB) | 1.11 | – (no --through-proxy) |\n", markdown, StringComparison.Ordinal);
        Assert.Contains("| proxy CPU per response (ms) | 0.500 |  |\n", markdown, StringComparison.Ordinal);
        Assert.Contains("| proxy | PID 24884 and 2 workers: 82 % of 200 %, RSS max 15.8 MiB, threads max 3 | – (no --through-proxy) |\n", markdown, StringComparison.Ordinal);
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
