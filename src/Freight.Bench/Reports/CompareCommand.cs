using System.CommandLine;
using Freight.Bench.Cli;
using CliCommand = System.CommandLine.Command;
using System.Text.Json;
using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary><c>freight compare</c>: loads the result files, renders the tables, exits 0 (or 2 on a usage or file error).</summary>
public static class CompareCommand
{
    private static readonly Argument<string[]> Files = new("FILES")
    {
        Description = "Result files of freight bench (the first is the base), or one or more with --scenarios.",
        Arity = ArgumentArity.OneOrMore,
        Validators = { CliValues.NoOptionLike },
    };

    private static readonly Option<bool> Markdown = new("--markdown") { Description = "GitHub Markdown tables, to paste into a pull request." };

    private static readonly Option<string[]?> Scenarios = new("--scenarios")
    {
        Description = "Compare these scenarios within each file instead (columns = scenarios, first = base; results matched by label), e.g. --scenarios static/staticfiles,static/freight.",
        HelpName = "A,B[,C]",
        CustomParser = result =>
        {
            var ids = CliValues.Token(result).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Distinct(StringComparer.Ordinal).ToArray();
            return ids.Length >= 2 ? ids : CliValues.Fail<string[]?>(result, "--scenarios needs at least two scenario ids, comma-separated (the first is the base).");
        },
    };

    private static readonly Option<double?> Noise = NoiseOption();

    private static readonly Option<string?> Output = new("--output") { Description = "Write the tables to FILE instead of the console.", HelpName = "FILE" };

    /// <summary>The --noise option of compare and report: changes below PCT% are not marked.</summary>
    internal static Option<double?> NoiseOption() =>
        CliValues.Number("--noise", $"Changes below PCT% are not marked (default {CompareReport.DefaultNoisePercent.ToString(System.Globalization.CultureInfo.InvariantCulture)}; between freight load results, it only raises the floors measured from A/A runs, and a change whose interval over runs excludes 1 still needs it).", zeroAllowed: true, helpName: "PCT");

    /// <summary>The command's definition; its action writes the tables to <paramref name="output"/> or --output.</summary>
    public static CliCommand Create(TextWriter output, TextWriter error)
    {
        var command = new CliCommand("compare", "Compare freight bench result files, crank-style: one table per scenario (matched by id and label), one column per file, each change against the first column; ✓ marks an improvement, ✗ a regression, ≈ no clear difference (freight load results, judged by their runs' noise: docs/load.md). Exit 0, 2 on a usage error or a file that cannot be read or written.")
        {
            Files, Markdown, Scenarios, Noise, Output,
        };
        command.Validators.Add(result =>
        {
            // An unknown option lands among the files, where its own error names it (CliValues.HasOptionLike).
            if (CliValues.HasOptionLike(result.GetResult(Files)))
            {
                return;
            }

            try
            {
                if (result.GetResult(Scenarios) is null && (result.GetValue(Files)?.Length ?? 0) < 2)
                {
                    result.AddError("compare needs at least two result files (or one with --scenarios A,B).");
                }
            }
            catch (InvalidOperationException)
            {
                // A value that failed its own parse (its error is already reported) cannot be read: nothing more to say.
            }
        });
        command.SetAction((parse, cancellationToken) => RunAsync(Bind(parse), output, error, cancellationToken));
        return command;
    }

    /// <summary>Parses <paramref name="args"/> (what follows <c>freight compare</c>); null and the error message when they are not valid.</summary>
    public static CompareOptions? Parse(IReadOnlyList<string> args, out string? error)
    {
        var parse = CliRun.Parse(Create(TextWriter.Null, TextWriter.Null), args, out error);
        return parse is null ? null : Bind(parse);
    }

    /// <summary>Parses <paramref name="args"/> (what follows <c>freight compare</c>) and compares.</summary>
    public static Task<int> RunAsync(IReadOnlyList<string> args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(args);
        var command = Create(output, error);
        return CliRun.RunAsync(CliRun.Root(command.Description ?? "", command), [command.Name, .. args], output, error, cancellationToken);
    }

    private static CompareOptions Bind(ParseResult parse) => new()
    {
        Files = parse.GetValue(Files) ?? [],
        Markdown = parse.GetValue(Markdown),
        // An array option left out reads as empty: null says "compare the files".
        Scenarios = parse.GetResult(Scenarios) is null ? null : parse.GetValue(Scenarios),
        Output = parse.GetValue(Output),
        NoisePercent = parse.GetValue(Noise) ?? CompareReport.DefaultNoisePercent,
    };

    private static async Task<int> RunAsync(CompareOptions options, TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        var sources = new List<CompareSource>();
        foreach (var path in options.Files)
        {
            var (report, loadError) = await LoadAsync(path, cancellationToken);
            if (report is null)
            {
                await error.WriteLineAsync($"error: {path}: {loadError}");
                return CliRun.UsageError;
            }

            sources.Add(new CompareSource(ColumnName(path, options.Files), report));
        }

        var text = options.Scenarios is { } scenarios
            ? CompareReport.CompareScenarios(sources, scenarios, options.Markdown, options.NoisePercent)
            : CompareReport.CompareFiles(sources, options.Markdown, options.NoisePercent);
        if (options.Output is null)
        {
            await output.WriteAsync(text);
            return 0;
        }

        try
        {
            // Whole or not at all, as every result file: in place, a failed write had truncated the earlier comparison.
            await ResultFile.WriteTextAsync(options.Output, text);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            await error.WriteLineAsync($"error: cannot write {options.Output}: {e.Message}");
            return CliRun.UsageError;
        }

        await output.WriteLineAsync($"comparison: {options.Output}");
        return 0;
    }

    /// <summary>Reads one result file; null and the reason when it is missing or not a bench result.</summary>
    public static async Task<(BenchReport? Report, string? Error)> LoadAsync(string path, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(path);

        // Opening one fails with "Access to the path is denied", which sends the user after permissions.
        if (Directory.Exists(path))
        {
            return (null, "is a directory, not a Freight bench result file");
        }

        try
        {
            await using var stream = File.OpenRead(path);
            if (stream.Length == 0)
            {
                return (null, NotAResult("the file is empty"));
            }

            var report = await JsonSerializer.DeserializeAsync<BenchReport>(stream, BenchReport.JsonOptions, cancellationToken);
            return report?.Results is null ? (null, NotAResult("no results")) : (report, null);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return (null, "file not found");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return (null, $"cannot read: {e.Message}");
        }
        catch (ArgumentException)
        {
            // An empty argument, or one with a character no path may hold.
            return (null, "not a file name");
        }
        catch (JsonException e)
        {
            return (null, NotAResult(WhyNotAResult(e)));
        }
    }

    private static string NotAResult(string reason) => $"not a Freight bench result ({reason})";

    /// <summary>
    /// Where the file stops being a result, in its own terms: System.Text.Json's message names .NET types and its reader's
    /// internals ("isFinalBlock", "BytePositionInLine"), which say nothing to someone holding a truncated or foreign file.
    /// </summary>
    private static string WhyNotAResult(JsonException e)
    {
        // Lines and bytes count from 0 in the exception, from 1 in an editor; a byte is a column until a non-ASCII character.
        var at = e.LineNumber is { } line ? $"line {line + 1}, byte {(e.BytePositionInLine ?? 0) + 1}" : null;

        // The reader's own error (text that is not JSON, or JSON cut short) comes as the inner exception; a value of
        // the wrong type, or a required field missing, has none.
        if (e.InnerException is JsonException)
        {
            return at is null ? "not valid JSON" : $"not valid JSON at {at}";
        }

        var where = e.Path is { Length: > 1 } path ? $" at {path}" : "";
        var what = MissingFields(e.Message) is { } missing ? $"missing {missing}" : "a missing field or a value of the wrong type";
        return $"{what}{where}{(at is null ? "" : $", {at}")}";
    }

    /// <summary>
    /// The required fields System.Text.Json says are missing ("… missing required properties including: 'machine',
    /// 'settings'."), as "'machine', 'settings'"; null when the message says something else (another wording, a language).
    /// </summary>
    private static string? MissingFields(string message)
    {
        const string Marker = "missing required properties including: ";
        var start = message.IndexOf(Marker, StringComparison.Ordinal);
        return start < 0 ? null : message[(start + Marker.Length)..].TrimEnd('.', ' ');
    }

    // The file name reads best as a header; two files of the same name keep the path given so they stay apart.
    internal static string ColumnName(string path, IReadOnlyList<string> paths)
    {
        var name = Path.GetFileName(path);
        return paths.Count(p => Path.GetFileName(p) == name) > 1 ? path : name;
    }
}
