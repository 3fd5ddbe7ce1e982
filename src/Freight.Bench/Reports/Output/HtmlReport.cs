namespace Freight.Bench.Reports.Output;

/// <summary>The HTML report of result files, as <c>freight report --html</c> writes it; the bench calls it at the end of a run.</summary>
public static class HtmlReport
{
    /// <summary>
    /// Writes the HTML report of the result file at <paramref name="resultJsonPath"/> to <paramref name="htmlPath"/>
    /// (by default beside it: <c>RESULT.html</c>); returns the path written.
    /// </summary>
    /// <exception cref="InvalidDataException">The file is missing, unreadable or not a bench result.</exception>
    public static async Task<string> WriteAsync(string resultJsonPath, string? htmlPath = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(resultJsonPath);
        var (report, error) = await CompareCommand.LoadAsync(resultJsonPath, cancellationToken);
        if (report is null)
        {
            throw new InvalidDataException($"{resultJsonPath}: {error}");
        }

        var path = htmlPath ?? Path.ChangeExtension(resultJsonPath, ".html");
        await File.WriteAllTextAsync(path, Render([new CompareSource(Path.GetFileName(resultJsonPath), report)]), cancellationToken);
        return path;
    }

    /// <summary>The page for loaded results (one column per source in the runs table; compare tables when there are several).</summary>
    public static string Render(IReadOnlyList<CompareSource> sources, double noisePercent = CompareReport.DefaultNoisePercent) =>
        HtmlReportWriter.Render(ReportBuilder.Build(sources, noisePercent));
}
