using System.Text.Json;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Tests.Reports;

namespace Freight.Bench.Tests.Results;

/// <summary>
/// Every result file in docs/results, written by the bench and freight load of earlier versions, still reads: each row
/// with its parameters typed and the <c>parameters</c> object written back key for key, value for value, in its order;
/// and <c>freight report</c> and <c>freight compare</c> take all of them at once.
/// </summary>
public sealed class PublishedResultFilesTests
{
    private static string ResultsDirectory => Path.Combine(ReportFixture.RepositoryRoot(), "docs", "results");

    public static TheoryData<string> ResultFiles()
    {
        var files = new TheoryData<string>();
        foreach (var path in Directory.GetFiles(ResultsDirectory, "*.json").Order(StringComparer.Ordinal))
        {
            files.Add(Path.GetFileName(path));
        }

        return files;
    }

    [Theory]
    [MemberData(nameof(ResultFiles))]
    public async Task Load_PublishedResultFile_EveryRowsParametersWrittenBackAsRead(string name)
    {
        var path = Path.Combine(ResultsDirectory, name);

        var (report, error) = await CompareCommand.LoadAsync(path);

        Assert.True(report is not null, error);
        using var file = JsonDocument.Parse(await File.ReadAllBytesAsync(path));
        var rows = file.RootElement.GetProperty("results");
        Assert.Equal(rows.GetArrayLength(), report.Results.Count);
        for (var i = 0; i < report.Results.Count; i++)
        {
            var read = rows[i].GetProperty("parameters");
            var parameters = report.Results[i].Parameters;
            Assert.Equal(Properties(read), Properties(JsonSerializer.SerializeToElement(parameters, BenchReport.JsonOptions)));
            if (read.TryGetProperty("label", out var label))
            {
                Assert.Equal(label.GetString(), parameters.Label);
            }

            if (read.TryGetProperty("payloadBytes", out var payload))
            {
                Assert.Equal(payload.GetInt64(), parameters.PayloadBytes);
            }
        }
    }

    [Fact]
    public async Task Report_EveryPublishedResultFile_WritesTheMarkdown()
    {
        var markdown = Path.Combine(ReportFixture.ArtifactsDirectory("published-results"), "report.md");
        using var output = new StringWriter();
        using var error = new StringWriter();

        var exit = await ReportCommand.RunAsync([.. AllFiles(), "--markdown", markdown], output, error);

        Assert.True(exit == 0, $"exit {exit}: {error}");
        Assert.Contains("2026-11-25-default.json", await File.ReadAllTextAsync(markdown), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Compare_EveryPublishedResultFile_ExitsZero()
    {
        using var output = new StringWriter();
        using var error = new StringWriter();

        var exit = await CompareCommand.RunAsync(AllFiles(), output, error);

        Assert.True(exit == 0, $"exit {exit}: {error}");
        Assert.NotEmpty(output.ToString());
    }

    private static List<string> AllFiles() => [.. Directory.GetFiles(ResultsDirectory, "*.json").Order(StringComparer.Ordinal)];

    /// <summary>An object's properties in order: each name and its value's JSON text.</summary>
    private static List<(string Name, string Value)> Properties(JsonElement element) =>
        [.. element.EnumerateObject().Select(p => (p.Name, p.Value.GetRawText()))];
}
