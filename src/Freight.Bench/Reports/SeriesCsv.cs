using System.Globalization;
using System.Text;
using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>Writes each load scenario's per-second series as CSV beside the result JSON.</summary>
public static class SeriesCsv
{
    public const string Header = "second,connections,completions,failures,p50Seconds,p99Seconds,threadPoolThreads,threadPoolQueueLength,cpuPercent,processThreads";

    /// <summary>
    /// Returns the paths written: <c>RESULT.SCENARIO.csv</c> (slashes become dashes), for the threads suite's
    /// rows. Static rows carry series too, but one scenario has a row per file size and connection count, so
    /// its name would not say which: theirs stay in the JSON and the report.
    /// </summary>
    public static IReadOnlyList<string> Write(BenchReport report, string jsonPath)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(jsonPath);
        var written = new List<string>();
        var stem = Path.ChangeExtension(jsonPath, null);
        foreach (var result in report.Results)
        {
            if (result.Suite != Suites.Threads.ThreadsSuite.Name || result.Series is not { Count: > 0 } series)
            {
                continue;
            }

            var path = $"{stem}.{result.Scenario.Replace('/', '-')}.csv";
            File.WriteAllText(path, Render(series));
            written.Add(path);
        }

        return written;
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
