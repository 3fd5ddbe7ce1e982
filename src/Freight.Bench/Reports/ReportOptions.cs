using System.Globalization;

namespace Freight.Bench.Reports;

/// <summary>Options of <c>freight report</c>.</summary>
public sealed record ReportOptions
{
    public required IReadOnlyList<string> Files { get; init; }

    public string? Html { get; init; }

    public string? Markdown { get; init; }

    public string? CsvDirectory { get; init; }

    public string? SvgDirectory { get; init; }

    /// <summary>The page whose verdicts section to rewrite (docs/results/README.md).</summary>
    public string? Verdicts { get; init; }

    public double NoisePercent { get; init; } = CompareReport.DefaultNoisePercent;

    public const string Usage = """
        usage: freight report RESULT.json [MORE.json...] [--html FILE] [--markdown FILE] [--csv DIR] [--svg DIR] [--verdicts FILE] [--noise PCT]
          renders freight bench result files: the machine and settings, per study a bar chart of our variants, the
          peers and the published figures, latency percentile curves and per-second series of the load scenarios,
          the ratios, and with several files the compare tables (as freight compare); at least one output:
          --html FILE      one self-contained page: inline SVG charts, each with its table, no script, no network
          --markdown FILE  the tables as GitHub Markdown, for a pull request or a README
          --csv DIR        one CSV file per table (RFC 4180, invariant culture), DIR created if missing
          --svg DIR        one standalone SVG file per chart (for a README), DIR created if missing
          --verdicts FILE  rewrites FILE's verdicts section (added at its end when it has none): each goal's
                           verdict, estimate and interval from the newest of the files that measured it, linked
          --noise PCT      compare tables: changes below PCT% are not marked (default 1)
        exit code 0, 1 when a file cannot be read or written, 2 on a usage error
        """;

    /// <summary>Parses the command line; returns null and an error message when it is not valid.</summary>
    public static ReportOptions? Parse(IReadOnlyList<string> args, out string? error)
    {
        ArgumentNullException.ThrowIfNull(args);
        error = null;
        var files = new List<string>();
        string? html = null, markdown = null, csv = null, svg = null, verdicts = null;
        var noise = CompareReport.DefaultNoisePercent;
        for (var i = 0; i < args.Count; i++)
        {
            var arg = args[i];
            if (!arg.StartsWith('-') || arg == "-")
            {
                files.Add(arg);
                continue;
            }

            if (arg is not ("--html" or "--markdown" or "--csv" or "--svg" or "--verdicts" or "--noise"))
            {
                error = $"unknown option '{arg}'.";
                return null;
            }

            if (i + 1 >= args.Count || args[i + 1].Length == 0)
            {
                error = $"{arg} needs a value.";
                return null;
            }

            var value = args[++i];
            switch (arg)
            {
                case "--html":
                    html = value;
                    break;
                case "--markdown":
                    markdown = value;
                    break;
                case "--csv":
                    csv = value;
                    break;
                case "--svg":
                    svg = value;
                    break;
                case "--verdicts":
                    verdicts = value;
                    break;
                default:
                    if (!double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out noise) || !(noise >= 0))
                    {
                        error = $"--noise must be a percentage ≥ 0, not '{value}'.";
                        return null;
                    }

                    break;
            }
        }

        if (files.Count == 0)
        {
            error = "report needs at least one result file.";
            return null;
        }

        if (html is null && markdown is null && csv is null && svg is null && verdicts is null)
        {
            error = "report needs an output: --html FILE, --markdown FILE, --csv DIR, --svg DIR or --verdicts FILE.";
            return null;
        }

        return new ReportOptions { Files = files, Html = html, Markdown = markdown, CsvDirectory = csv, SvgDirectory = svg, Verdicts = verdicts, NoisePercent = noise };
    }
}
