using System.Text.Json;
using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary><c>freight compare</c>: loads the result files, renders the tables, exits 0 (or 2 on a usage or file error).</summary>
public static class CompareCommand
{
    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        if (args.Count == 0 || args.Any(a => a is "--help" or "-h"))
        {
            await output.WriteLineAsync(CompareOptions.Usage);
            return args.Count == 0 ? 2 : 0;
        }

        var options = CompareOptions.Parse(args, out var problem);
        if (options is null)
        {
            await error.WriteLineAsync($"error: {problem}");
            await error.WriteLineAsync(CompareOptions.Usage);
            return 2;
        }

        var sources = new List<CompareSource>();
        foreach (var path in options.Files)
        {
            var (report, loadError) = await LoadAsync(path, cancellationToken);
            if (report is null)
            {
                await error.WriteLineAsync($"error: {path}: {loadError}");
                return 2;
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
            await File.WriteAllTextAsync(options.Output, text, cancellationToken);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            await error.WriteLineAsync($"error: cannot write {options.Output}: {e.Message}");
            return 2;
        }

        await output.WriteLineAsync($"comparison: {options.Output}");
        return 0;
    }

    /// <summary>Reads one result file; null and the reason when it is missing or not a bench result.</summary>
    public static async Task<(BenchReport? Report, string? Error)> LoadAsync(string path, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(path);
        try
        {
            await using var stream = File.OpenRead(path);
            var report = await JsonSerializer.DeserializeAsync<BenchReport>(stream, BenchReport.JsonOptions, cancellationToken);
            return report?.Results is null ? (null, "not a freight bench result file (no results)") : (report, null);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return (null, "file not found");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return (null, $"cannot read: {e.Message}");
        }
        catch (JsonException e)
        {
            return (null, $"not a freight bench result file: {e.Message}");
        }
    }

    // The file name reads best as a header; two files of the same name keep the path given so they stay apart.
    internal static string ColumnName(string path, IReadOnlyList<string> paths)
    {
        var name = Path.GetFileName(path);
        return paths.Count(p => Path.GetFileName(p) == name) > 1 ? path : name;
    }
}
