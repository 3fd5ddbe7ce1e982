using System.Globalization;
using System.Text;
using Freight.Bench.Cli;
using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>Writes each load scenario's per-second series as CSV beside the result JSON.</summary>
public static class SeriesCsv
{
    public const string Header = "second,connections,completions,failures,p50Seconds,p99Seconds,threadPoolThreads,threadPoolQueueLength,cpuPercent,processThreads";

    /// <summary>
    /// Writes <c>RESULT.SCENARIO.csv</c> (slashes become dashes) for the threads suite's rows and returns the paths, as
    /// every result file is written (<see cref="ResultFile.WriteAllAsync"/>): each whole or not at all, and none when
    /// one of them cannot be (written in place, a failure or Ctrl+C part-way left a truncated file). Static rows carry
    /// series too, but one scenario has a row per file size and connection count, so its name would not say which:
    /// theirs stay in the JSON and the report.
    /// </summary>
    public static async Task<IReadOnlyList<string>> WriteAsync(BenchReport report, string jsonPath)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(jsonPath);
        var files = new List<KeyValuePair<string, string>>();
        var stem = Path.ChangeExtension(jsonPath, null);
        foreach (var result in report.Results)
        {
            if (result.Suite != Suites.Threads.ThreadsSuite.Name || result.Series is not { Count: > 0 } series)
            {
                continue;
            }

            files.Add(new($"{stem}.{result.Scenario.Replace('/', '-')}.csv", Render(series)));
        }

        await ResultFile.WriteAllAsync(files);
        return [.. files.Select(f => f.Key)];
    }

    public static string Render(IEnumerable<SeriesPoint> series)
    {
        ArgumentNullException.ThrowIfNull(series);
        var csv = new StringBuilder().AppendLine(Header);
        foreach (var p in series)
        {
            csv.AppendLine(string.Join(',',
                p.Second.ToString(CultureInfo.InvariantCulture),
                p.Connections.ToString(CultureInfo.InvariantCulture),
                p.Completions.ToString(CultureInfo.InvariantCulture),
                p.Failures.ToString(CultureInfo.InvariantCulture),
                N(p.P50Seconds),
                N(p.P99Seconds),
                p.ThreadPoolThreads?.ToString(CultureInfo.InvariantCulture) ?? "",
                p.ThreadPoolQueueLength?.ToString(CultureInfo.InvariantCulture) ?? "",
                N(p.CpuPercent),
                p.ProcessThreads?.ToString(CultureInfo.InvariantCulture) ?? ""));
        }

        return csv.ToString();
    }

    private static string N(double? value) => value?.ToString("0.######", CultureInfo.InvariantCulture) ?? "";
}
