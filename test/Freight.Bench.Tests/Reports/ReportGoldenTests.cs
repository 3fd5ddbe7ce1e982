using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// <c>freight report Fixtures/report.json --markdown FILE --csv DIR</c> against the golden files beside the fixture,
/// text for text (CSV byte for byte: CRLF record ends). After an intended change to the report, regenerate them with
/// <c>FREIGHTTEST_UPDATE_GOLDEN=1 dotnet test test/Freight.Bench.Tests --filter FullyQualifiedName~ReportGoldenTests</c>
/// and review the diff before committing it.
/// </summary>
public sealed class ReportGoldenTests
{
    [Fact]
    public async Task Markdown_Fixture_MatchesGolden()
    {
        var directory = ReportFixture.ArtifactsDirectory("report-golden");
        var path = Path.Combine(directory, "report.md");

        var exit = await RunReportAsync(ReportFixture.ResultPath, "--markdown", path);

        Assert.Equal(0, exit);
        var actual = await File.ReadAllTextAsync(path);
        if (ReportFixture.UpdateGoldens)
        {
            await File.WriteAllTextAsync(Path.Combine(ReportFixture.SourceDirectory, Path.GetFileName(ReportFixture.GoldenMarkdownPath)), actual);
            await File.WriteAllTextAsync(ReportFixture.GoldenMarkdownPath, actual);
        }

        // The writer ends lines with \n everywhere; a checkout may have turned the golden's into CRLF.
        var golden = (await File.ReadAllTextAsync(ReportFixture.GoldenMarkdownPath)).ReplaceLineEndings("\n");
        Assert.Equal(golden, actual);
    }

    [Fact]
    public async Task Csv_Fixture_OneFilePerTableMatchingGoldens()
    {
        var directory = Path.Combine(ReportFixture.ArtifactsDirectory("report-golden"), "csv");
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }

        var exit = await RunReportAsync(ReportFixture.ResultPath, "--csv", directory);

        Assert.Equal(0, exit);
        var actual = Directory.GetFiles(directory).Select(Path.GetFileName).Order(StringComparer.Ordinal).ToArray();
        if (ReportFixture.UpdateGoldens)
        {
            var source = Path.Combine(ReportFixture.SourceDirectory, Path.GetFileName(ReportFixture.GoldenCsvDirectory));
            foreach (var target in new[] { source, ReportFixture.GoldenCsvDirectory })
            {
                if (Directory.Exists(target))
                {
                    Directory.Delete(target, recursive: true);
                }

                Directory.CreateDirectory(target);
                foreach (var name in actual)
                {
                    File.Copy(Path.Combine(directory, name!), Path.Combine(target, name!));
                }
            }
        }

        var golden = Directory.GetFiles(ReportFixture.GoldenCsvDirectory, "*.csv").Select(Path.GetFileName).Order(StringComparer.Ordinal).ToArray();
        Assert.Equal(golden, actual);
        foreach (var name in golden)
        {
            var expected = await File.ReadAllBytesAsync(Path.Combine(ReportFixture.GoldenCsvDirectory, name!));
            var written = await File.ReadAllBytesAsync(Path.Combine(directory, name!));
            Assert.True(expected.AsSpan().SequenceEqual(written), $"{name} differs from its golden:\n{System.Text.Encoding.UTF8.GetString(written)}");
        }
    }

    [Fact]
    public async Task Csv_Fixture_QuotesFieldsWithCommasAndQuotes()
    {
        var model = ReportBuilder.Build([await ReportFixture.LoadAsync()]);

        var csv = CsvReportWriter.Render(model.Tables.Single(t => t.Id == "transfer-throughput"));

        // RFC 4180 §2.6–2.7 on the fixture's own rows: a published note with a comma, an error with commas and quotes.
        Assert.Contains(",\"D1, study 1\",", csv, StringComparison.Ordinal);
        Assert.EndsWith(",NO,\"the server stored 20,971,519 bytes, not the 20,971,520 sent; its \"\"Repr-Digest\"\" differed\"\r\n", csv, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Csv_RatioWithAnInterval_WritesItsBoundsAndLevelAsNumbers()
    {
        var model = ReportBuilder.Build([await ReportFixture.LoadAsync()]);

        var csv = CsvReportWriter.Render(model.Tables.Single(t => t.Id == "ratios")).Split("\r\n");

        // The HTML and Markdown show "1.61–1.88×"; a CSV reader gets numbers, and the level (0.995 after added runs).
        Assert.Equal("ratio,numerator,denominator,ours,interval low,interval high,interval level,study,goal,verdict", csv[0]);
        Assert.StartsWith("download-freight / download-file,", csv[2], StringComparison.Ordinal);
        Assert.Contains(",1.7412,1.6104,1.8827,0.95,,", csv[2], StringComparison.Ordinal);
        Assert.Contains(",4.861705454,,,,11.666666667,", csv[1], StringComparison.Ordinal);
        Assert.DoesNotContain("–", string.Join('\n', csv), StringComparison.Ordinal);
    }

    private static async Task<int> RunReportAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var exit = await ReportCommand.RunAsync(args, output, error);
        Assert.True(exit == 0, $"exit {exit}: {error}");
        return exit;
    }
}
