using Freight.Bench.Reports.Output;

namespace Freight.Bench.Reports;

/// <summary>
/// <c>freight report</c>: loads the result files, builds the report once and writes it as HTML, Markdown and/or CSV.
/// Exit code 0; 1 when a result file cannot be read or an output cannot be written; 2 on a usage error.
/// </summary>
public static class ReportCommand
{
    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        if (args.Count == 0 || args.Any(a => a is "--help" or "-h"))
        {
            await (args.Count == 0 ? error : output).WriteLineAsync(ReportOptions.Usage);
            return args.Count == 0 ? 2 : 0;
        }

        var options = ReportOptions.Parse(args, out var problem);
        if (options is null)
        {
            await error.WriteLineAsync($"error: {problem}");
            await error.WriteLineAsync(ReportOptions.Usage);
            return 2;
        }

        var sources = new List<CompareSource>();
        var runs = new List<VerdictsPage.Run>();
        foreach (var path in options.Files)
        {
            var (report, loadError) = await CompareCommand.LoadAsync(path, cancellationToken);
            if (report is null)
            {
                await error.WriteLineAsync($"error: {path}: {loadError}");
                return 1;
            }

            sources.Add(new CompareSource(CompareCommand.ColumnName(path, options.Files), report));
            runs.Add(new VerdictsPage.Run(VerdictsLink(path, options.Verdicts), report));
        }

        var model = ReportBuilder.Build(sources, options.NoisePercent);
        var target = "";
        try
        {
            if (options.Html is { } html)
            {
                target = html;
                await File.WriteAllTextAsync(html, HtmlReportWriter.Render(model), cancellationToken);
                await output.WriteLineAsync($"html: {html}");
            }

            if (options.Markdown is { } markdown)
            {
                target = markdown;
                await File.WriteAllTextAsync(markdown, MarkdownReportWriter.Render(model), cancellationToken);
                await output.WriteLineAsync($"markdown: {markdown}");
            }

            if (options.CsvDirectory is { } directory)
            {
                target = directory;
                var written = await CsvReportWriter.WriteAsync(model, directory, cancellationToken);
                await output.WriteLineAsync($"csv: {directory} ({written.Count} files)");
            }

            if (options.Verdicts is { } page)
            {
                target = page;
                var existing = File.Exists(page) ? await File.ReadAllTextAsync(page, cancellationToken) : null;
                await File.WriteAllTextAsync(page, VerdictsPage.Rewrite(existing, VerdictsPage.Render(runs)), cancellationToken);
                await output.WriteLineAsync($"verdicts: {page}");
            }

            if (options.SvgDirectory is { } charts)
            {
                target = charts;
                var written = await SvgChartFiles.WriteAsync(model, charts, cancellationToken);
                await output.WriteLineAsync($"svg: {charts} ({written.Count} files)");
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            await error.WriteLineAsync($"error: cannot write {target}: {e.Message}");
            return 1;
        }

        return 0;
    }

    /// <summary>A result file as the verdicts page links to it: relative to the page's folder, with forward slashes.</summary>
    private static string VerdictsLink(string path, string? page) =>
        (page is null ? path : Path.GetRelativePath(Path.GetDirectoryName(Path.GetFullPath(page))!, Path.GetFullPath(path))).Replace('\\', '/');
}
