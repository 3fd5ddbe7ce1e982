using System.Globalization;

namespace Freight.Bench.Reports;

/// <summary>Options of <c>freight compare</c>.</summary>
public sealed record CompareOptions
{
    public required IReadOnlyList<string> Files { get; init; }

    public bool Markdown { get; init; }

    /// <summary>Scenario ids to compare within each file (first = base) instead of comparing the files.</summary>
    public IReadOnlyList<string>? Scenarios { get; init; }

    public string? Output { get; init; }

    public double NoisePercent { get; init; } = CompareReport.DefaultNoisePercent;

    public const string Usage = """
        usage: freight compare BASE.json NEW.json [MORE.json...] [--markdown] [--noise PCT] [--output FILE]
               freight compare RUN.json [MORE.json...] --scenarios BASE,OTHER[,...] [--markdown] [--noise PCT] [--output FILE]
          compares freight bench result files, crank-style: one table per scenario (matched by id and label),
          one column per file, each change against the first column; ✓ marks an improvement, ✗ a regression
          --scenarios A,B[,C]  compare these scenarios within each file instead (columns = scenarios, first = base;
                               results matched by label), e.g. --scenarios static/staticfiles,static/freight
          --markdown           GitHub Markdown tables, to paste into a pull request
          --noise PCT          changes below PCT% are not marked (default 1)
          --output FILE        write the tables to FILE instead of the console
        """;

    /// <summary>Parses the command line; returns null and an error message when it is not valid.</summary>
    public static CompareOptions? Parse(IReadOnlyList<string> args, out string? error)
    {
        ArgumentNullException.ThrowIfNull(args);
        error = null;
        var files = new List<string>();
        var markdown = false;
        IReadOnlyList<string>? scenarios = null;
        string? output = null;
        var noise = CompareReport.DefaultNoisePercent;
        for (var i = 0; i < args.Count; i++)
        {
            var arg = args[i];
            if (!arg.StartsWith('-') || arg == "-")
            {
                files.Add(arg);
                continue;
            }

            if (arg == "--markdown")
            {
                markdown = true;
                continue;
            }

            if (arg is not ("--scenarios" or "--output" or "--noise"))
            {
                error = $"unknown option '{arg}'.";
                return null;
            }

            if (i + 1 >= args.Count)
            {
                error = $"{arg} needs a value.";
                return null;
            }

            var value = args[++i];
            switch (arg)
            {
                case "--scenarios":
                    scenarios = value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Distinct(StringComparer.Ordinal).ToArray();
                    if (scenarios.Count < 2)
                    {
                        error = "--scenarios needs at least two scenario ids, comma-separated (the first is the base).";
                        return null;
                    }

                    break;
                case "--output":
                    output = value;
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

        if (files.Count < (scenarios is null ? 2 : 1))
        {
            error = scenarios is null
                ? "compare needs at least two result files (or one with --scenarios A,B)."
                : "compare needs a result file.";
            return null;
        }

        return new CompareOptions { Files = files, Markdown = markdown, Scenarios = scenarios, Output = output, NoisePercent = noise };
    }
}
