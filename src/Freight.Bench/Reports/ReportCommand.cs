using System.CommandLine;
using Freight.Bench.Cli;
using Freight.Bench.Peers;
using CliCommand = System.CommandLine.Command;
using Freight.Bench.Reports.Output;

namespace Freight.Bench.Reports;

/// <summary>
/// <c>freight report</c>: loads the result files, builds the report once and writes it as HTML, Markdown and/or CSV.
/// Exit code 0; 2 on a usage error or a file that cannot be read or written, as <c>freight compare</c> (1 is the bench's
/// "measured, and a goal or a verification failed": nothing report does).
/// </summary>
public static class ReportCommand
{
    private static readonly Argument<string[]> Files = new("FILES") { Description = "Result files of freight bench (or freight load).", Arity = ArgumentArity.OneOrMore, Validators = { CliValues.NoOptionLike } };

    private static readonly Option<string?> Html = new("--html") { Description = "One self-contained page: inline SVG charts, each with its table, no script, no network.", HelpName = "FILE" };

    private static readonly Option<string?> Markdown = new("--markdown") { Description = "The tables as GitHub Markdown, for a pull request or a README.", HelpName = "FILE" };

    private static readonly Option<string?> Csv = new("--csv") { Description = "One CSV file per table (RFC 4180, invariant culture), DIR created if missing.", HelpName = "DIR" };

    private static readonly Option<string?> Svg = new("--svg") { Description = "One standalone SVG file per chart (for a README), DIR created if missing.", HelpName = "DIR" };

    private static readonly Option<string?> Verdicts = new("--verdicts")
    {
        Description = "Rewrites FILE's verdicts section (added at its end when it has none): each goal's verdict, estimate and interval from the newest of the files that measured it, linked.",
        HelpName = "FILE",
    };

    private static readonly Option<double?> Noise = CompareCommand.NoiseOption();

    /// <summary>The command's definition; its action writes the outputs and names each on <paramref name="output"/>.</summary>
    public static CliCommand Create(TextWriter output, TextWriter error)
    {
        var command = new CliCommand("report", "Render freight bench result files: the machine and settings, per study a bar chart of our variants, the peers and the published figures, latency percentile curves and per-second series of the load scenarios, the ratios, and with several files the compare tables (as freight compare). At least one output. Exit 0, 2 on a usage error or a file that cannot be read or written.")
        {
            Files, Html, Markdown, Csv, Svg, Verdicts, Noise,
        };
        foreach (var path in new[] { Html, Markdown, Csv, Svg, Verdicts })
        {
            path.Validators.Add(result =>
            {
                if (result.Tokens.Count > 0 && result.Tokens[^1].Value.Length == 0)
                {
                    result.AddError($"{result.Option.Name} needs a value.");
                }
            });
        }

        command.Validators.Add(result =>
        {
            // A mistyped output option lands among the files, where its own error names it (CliValues.HasOptionLike).
            if (CliValues.HasOptionLike(result.GetResult(Files)))
            {
                return;
            }

            if (result.GetResult(Html) is null && result.GetResult(Markdown) is null && result.GetResult(Csv) is null && result.GetResult(Svg) is null && result.GetResult(Verdicts) is null)
            {
                result.AddError("report needs an output: --html FILE, --markdown FILE, --csv DIR, --svg DIR or --verdicts FILE.");
            }
        });
        command.SetAction((parse, cancellationToken) => RunAsync(Bind(parse), output, error, cancellationToken));
        return command;
    }

    /// <summary>Parses <paramref name="args"/> (what follows <c>freight report</c>); null and the error message when they are not valid.</summary>
    public static ReportOptions? Parse(IReadOnlyList<string> args, out string? error)
    {
        var parse = CliRun.Parse(Create(TextWriter.Null, TextWriter.Null), args, out error);
        return parse is null ? null : Bind(parse);
    }

    /// <summary>Parses <paramref name="args"/> (what follows <c>freight report</c>) and writes the report.</summary>
    public static Task<int> RunAsync(IReadOnlyList<string> args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(args);
        var command = Create(output, error);
        return CliRun.RunAsync(CliRun.Root(command.Description ?? "", command), [command.Name, .. args], output, error, cancellationToken);
    }

    private static ReportOptions Bind(ParseResult parse) => new()
    {
        Files = parse.GetValue(Files) ?? [],
        Html = parse.GetValue(Html),
        Markdown = parse.GetValue(Markdown),
        CsvDirectory = parse.GetValue(Csv),
        SvgDirectory = parse.GetValue(Svg),
        Verdicts = parse.GetValue(Verdicts),
        NoisePercent = parse.GetValue(Noise) ?? CompareReport.DefaultNoisePercent,
    };

    private static async Task<int> RunAsync(ReportOptions options, TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        var sources = new List<CompareSource>();
        var runs = new List<VerdictsPage.Run>();
        foreach (var path in options.Files)
        {
            var (report, loadError) = await CompareCommand.LoadAsync(path, cancellationToken);
            if (report is null)
            {
                await error.WriteLineAsync($"error: {path}: {loadError}");
                return CliRun.UsageError;
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
                await ResultFile.WriteTextAsync(html, HtmlReportWriter.Render(model));
                await output.WriteLineAsync($"html: {html}");
            }

            if (options.Markdown is { } markdown)
            {
                target = markdown;
                await ResultFile.WriteTextAsync(markdown, MarkdownReportWriter.Render(model));
                await output.WriteLineAsync($"markdown: {markdown}");
            }

            if (options.CsvDirectory is { } directory)
            {
                target = directory;
                var written = await CsvReportWriter.WriteAsync(model, directory, cancellationToken);
                await output.WriteLineAsync($"csv: {directory} ({CountText.Format(written.Count, "file")})");
            }

            if (options.Verdicts is { } page)
            {
                target = page;
                var existing = File.Exists(page) ? await File.ReadAllTextAsync(page, cancellationToken) : null;
                await ResultFile.WriteTextAsync(page, VerdictsPage.Rewrite(existing, VerdictsPage.Render(runs, MethodLink(page))));
                await output.WriteLineAsync($"verdicts: {page}");
            }

            if (options.SvgDirectory is { } charts)
            {
                target = charts;
                var written = await SvgChartFiles.WriteAsync(model, charts, cancellationToken);
                await output.WriteLineAsync($"svg: {charts} ({CountText.Format(written.Count, "file")})");
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            await error.WriteLineAsync($"error: cannot write {target}: {e.Message}");
            return CliRun.UsageError;
        }

        return 0;
    }

    /// <summary>
    /// Where the verdicts page links for how verdicts are drawn: docs/bench.md of the clone the page is written in,
    /// relative to the page, so the link works wherever the page sits in the tree, on GitHub as in a checkout. A page
    /// outside a clone has no docs beside it (and the repository has no public address to link to instead): null, and
    /// the page names the section as text.
    /// </summary>
    private static string? MethodLink(string page)
    {
        var folder = Path.GetDirectoryName(Path.GetFullPath(page))!;
        var bench = NodePackages.FindRepositoryRoot(folder) is { } root ? Path.Combine(root, "docs", "bench.md") : null;
        return bench is not null && File.Exists(bench)
            ? Path.GetRelativePath(folder, bench).Replace('\\', '/') + "#" + VerdictsPage.MethodAnchor
            : null;
    }

    /// <summary>A result file as the verdicts page links to it: relative to the page's folder, with forward slashes.</summary>
    private static string VerdictsLink(string path, string? page) =>
        (page is null ? path : Path.GetRelativePath(Path.GetDirectoryName(Path.GetFullPath(page))!, Path.GetFullPath(path))).Replace('\\', '/');
}
