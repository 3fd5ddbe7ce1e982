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

    /// <summary>A <c>freight load</c> row: a 1 MiB PUT at 8 connections for 10 s, with one series point per value of <paramref name="completions"/>.</summary>
    internal static ScenarioResult LoadRow(string url, double[] completions, double p50Milliseconds = 2)
    {
        var perSecond = completions.Average();
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
