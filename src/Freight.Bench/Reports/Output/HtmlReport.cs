using Freight.Bench.Cli;
using Freight.Bench.Results;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// The HTML report, as <c>freight report --html</c> writes it: of a result file, or of the report a bench run holds in
/// memory (the bench writes it beside its result JSON without reading that file back).
/// </summary>
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

        return await WriteAsync(report, Path.GetFileName(resultJsonPath), htmlPath ?? Path.ChangeExtension(resultJsonPath, ".html"), cancellationToken);
    }

    /// <summary>
    /// Writes the HTML report of <paramref name="report"/> to <paramref name="htmlPath"/>, the run named
    /// <paramref name="name"/> (its result file's name, as <c>freight report</c> would call it); returns the path written.
    /// </summary>
    public static async Task<string> WriteAsync(BenchReport report, string name, string htmlPath, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentException.ThrowIfNullOrEmpty(htmlPath);
        cancellationToken.ThrowIfCancellationRequested();
        await ResultFile.WriteTextAsync(htmlPath, Render([new CompareSource(name, report)]));
        return htmlPath;
    }

    /// <summary>The page for loaded results (one column per source in the runs table; compare tables when there are several).</summary>
    public static string Render(IReadOnlyList<CompareSource> sources, double noisePercent = CompareReport.DefaultNoisePercent) =>
        HtmlReportWriter.Render(ReportBuilder.Build(sources, noisePercent));
}
