using System.Globalization;
using System.Text;
using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>The console table: one row per scenario, then the ratios.</summary>
public static class ConsoleReport
{
    private const double MiB = 1024 * 1024;

    public static async Task WriteAsync(BenchReport report, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(report);
        ArgumentNullException.ThrowIfNull(output);
        await output.WriteAsync(Render(report));
    }

    public static string Render(BenchReport report)
    {
        ArgumentNullException.ThrowIfNull(report);
        var rows = new List<string[]>
        {
            new[] { "scenario", "parameters", "MiB/s median", "min–max", "vs tcp", "ttfb ms", "srv cpu s/GiB", "cli cpu s/GiB", "published", "ours/pub" },
        };
        foreach (var r in report.Results.Where(r => r.Suite is "transfer" or "files" or "tus"))
        {
            var label = r.Parameters.Label ?? "";
            if (!r.Verified || r.BytesPerSecond is null)
            {
                rows.Add([r.Scenario, label, "NOT VERIFIED", "", "", "", "", "", Published(r), ""]);
                continue;
            }

            var median = r.BytesPerSecond.Median / MiB;
            rows.Add(
            [
                r.Scenario,
                label,
                F(median, "0"),
                $"{F(r.BytesPerSecond.Min / MiB, "0")}–{F(r.BytesPerSecond.Max / MiB, "0")}",
                r.EfficiencyVsTcp is { } e ? F(e * 100, "0") + "%" : "",
                r.TimeToFirstByteSeconds is { } t ? F(t.Median * 1000, "0.0") : "",
                ServerCpu(r.Server),
                r.Client?.CpuSecondsPerGiB is { } c ? F(c, "0.00") : "",
                Published(r),
                r.Published is { } p ? F(median / p.Value, "0.0") + "×" : "",
            ]);
        }

        var text = new StringBuilder();
        if (rows.Count > 1)
        {
            text.AppendLine();
            AppendTable(text, WithInstructions(rows, report));
        }

        var json = JsonRows(report);
        if (json.Count > 1)
        {
            text.AppendLine();
            AppendTable(text, json);
        }

        var threads = ThreadsRows(report);
        if (threads.Count > 1)
        {
            text.AppendLine();
            AppendTable(text, threads);
            AppendTimelines(text, report);
        }

        var staticRows = StaticRows(report);
        if (staticRows.Count > 1)
        {
            text.AppendLine();
            AppendTable(text, staticRows);
        }

        var micro = MicroRows(report);
        if (micro.Count > 1)
        {
            text.AppendLine();
            AppendTable(text, micro);
        }

        text.AppendLine();
        var ratios = new List<string[]> { new[] { "ratio", "ours", "95% interval", "study", "goal", "runs" } };
        foreach (var ratio in report.Ratios)
        {
            // With an interval, "ours" is its estimate, so the figure, its bounds and the verdict agree.
            var interval = ratio.Interval;
            ratios.Add(
            [
                ratio.Name,
                (interval?.Estimate ?? ratio.Value) is { } v ? RatioFigure(v, ratio.Unit) + ratio.Unit : "n/a",
                interval is null ? "" : $"[{RatioFigure(interval.Low, ratio.Unit)}–{RatioFigure(interval.High, ratio.Unit)}]{LevelNote(interval)}",
                ratio.Published is { } p ? F(p, "0.00") + ratio.Unit : "",
                ratio.Goal is { } g ? $"{(ratio.LowerIsBetter ? "≤" : "≥")} {F(g, "0.0##")}{ratio.Unit} {GoalText(ratio)}" : "",
                ratio.VerdictNote ?? "",
            ]);
        }

        AppendTable(text, ratios);
        if (report.SuiteChecks.Count > 0)
        {
            text.AppendLine();
            foreach (var check in report.SuiteChecks)
            {
                text.AppendLine(check.NoiseText());
                text.AppendLine(check.RunsText());
            }
        }

        if (report.Unreliable)
        {
            text.AppendLine();
            text.AppendLine(SuiteCheck.UnreliableText);
        }

        if (report.Measures is { } measures)
        {
            text.AppendLine();
            text.AppendLine(measures.Describe());
        }

        text.AppendLine();
        text.AppendLine(report.Verified
            ? "every scenario verified (transfers: XXH3-128 and byte count; JSON: records and canonical hash; load: status codes; static: every body byte under the engine, wrk rounds by bytes read and a checked GET after each)"
            : "SOME SCENARIOS DID NOT VERIFY: their rows carry no figures");
        return text.ToString();
    }

    /// <summary>The micro suite's table: GB/s of one core over the iterations, the time and allocations of one operation.</summary>
    private static List<string[]> MicroRows(BenchReport report)
    {
        var rows = new List<string[]>
        {
            new[] { "scenario", "input", "GB/s a core", "min–max", "time/op", "alloc B/op" },
        };
        foreach (var r in report.Results.Where(r => r.Suite == "micro"))
        {
            var label = r.Parameters.Label ?? "";
            if (!r.Verified || r.BytesPerSecond is null)
            {
                rows.Add([r.Scenario, label, "NOT VERIFIED", "", "", ""]);
                continue;
            }

            var seconds = (r.Parameters.BytesPerOperation ?? 0) / r.BytesPerSecond.Median;
            rows.Add(
            [
                r.Scenario,
                label,
                F(r.BytesPerSecond.Median / 1e9, "0.00"),
                $"{F(r.BytesPerSecond.Min / 1e9, "0.00")}–{F(r.BytesPerSecond.Max / 1e9, "0.00")}",
                seconds >= 1e-3 ? F(seconds * 1e3, "0.000") + " ms" : seconds >= 1e-6 ? F(seconds * 1e6, "0.000") + " µs" : F(seconds * 1e9, "0.0") + " ns",
                r.Parameters.AllocatedBytesPerOperation is { } allocated ? F(allocated, "0") : "",
            ]);
        }

        return rows;
    }

    /// <summary>The json suite's table: time per response first, then what the server spent on each.</summary>
    private static List<string[]> JsonRows(BenchReport report)
    {
        var rows = new List<string[]>
        {
            new[] { "scenario", "parameters", "time p50 s", "p90 s", "max s", "ttfb ms", "MiB/s", "resp/s", "srv cpu ms/resp", "srv alloc MiB/resp", "srv disk MiB/resp", "published", "ours/pub" },
        };
        foreach (var r in report.Results.Where(r => r.Suite == "json"))
        {
            var label = r.Parameters.Label ?? "";
            if (!r.Verified || r.LatencySeconds is null)
            {
                rows.Add([r.Scenario, label, "NOT VERIFIED", "", "", "", "", "", "", "", "", Published(r), ""]);
                continue;
            }

            rows.Add(
            [
                r.Scenario,
                label,
                F(r.LatencySeconds.P50, "0.000"),
                F(r.LatencySeconds.P90, "0.000"),
                F(r.LatencySeconds.Max, "0.000"),
                r.TimeToFirstByteSeconds is { } t ? F(t.Median * 1000, "0.0") : "",
                r.BytesPerSecond is { } b ? F(b.Median / MiB, "0") : "",
                r.RequestsPerSecond is { } q ? F(q.Median, "0.0") : "",
                r.Server?.CpuSecondsPerResponse is { } cpu ? F(cpu * 1000, "0") : "",
                r.Server?.AllocatedBytesPerTransfer is { } alloc ? F(alloc / MiB, "0.0") : "",
                r.Server?.DiskBytesWrittenPerResponse is { } disk ? F(disk / MiB, "0.0") : "",
                Published(r),
                r.Published is { } p ? F(r.LatencySeconds.P50 / p.Value, "0.000") + "×" : "",
            ]);
        }

        return rows;
    }

    /// <summary>The threads suite's table: what the ramp did to latency and to the server's threads.</summary>
    private static List<string[]> ThreadsRows(BenchReport report)
    {
        var rows = new List<string[]>
        {
            new[] { "scenario", "parameters", "responses", "resp/s", "p50 s", "p90 s", "p99 s", "max s", "status", "sock err", "timeouts", "tp threads max", "published" },
        };
        foreach (var r in report.Results.Where(r => r.Suite == "threads"))
        {
            var l = r.LatencySeconds;
            rows.Add(
            [
                r.Scenario,
                r.Parameters.Label ?? "",
                r.Transfers.ToString(CultureInfo.InvariantCulture),
                r.RequestsPerSecond is { } q ? F(q.Median, "0.0") : "",
                l is null ? "" : F(l.P50, "0.00"),
                l is null ? "" : F(l.P90, "0.00"),
                l is null ? "" : F(l.P99, "0.00"),
                l is null ? "" : F(l.Max, "0.00"),
                r.StatusCodes is { } codes ? string.Join(' ', codes.Select(c => $"{c.Key}×{c.Value}")) : "",
                (r.SocketErrors ?? 0).ToString(CultureInfo.InvariantCulture),
                (r.Timeouts ?? 0).ToString(CultureInfo.InvariantCulture),
                r.Server?.ThreadPoolThreadsMax?.ToString(CultureInfo.InvariantCulture) ?? "",
                Published(r),
            ]);
        }

        return rows;
    }

    /// <summary>The static suite's table: the crank rows that matter most, one line per scenario.</summary>
    private static List<string[]> StaticRows(BenchReport report)
    {
        var rows = new List<string[]>
        {
            new[] { "scenario", "parameters", "req/s", "min–max", "MiB/s", "p50 ms", "p99 ms", "max ms", "bad", "sock err", "srv cpu %", "srv µs/resp", "srv alloc MiB/s", "srv alloc KiB/resp", "gc 0/1/2", "tp thr", "first ms", "published", "ours/pub" },
        };
        foreach (var r in report.Results.Where(r => r.Suite == "static"))
        {
            var label = r.Parameters.Label ?? "";
            if (!r.Verified || r.RequestsPerSecond is null)
            {
                rows.Add([r.Scenario, label, "NOT VERIFIED", "", "", "", "", "", "", "", "", "", "", "", "", "", "", Published(r), ""]);
                continue;
            }

            var l = r.LatencySeconds;
            var k = r.Counters;
            rows.Add(
            [
                r.Scenario,
                label,
                F(r.RequestsPerSecond.Median, "0"),
                $"{F(r.RequestsPerSecond.Min, "0")}–{F(r.RequestsPerSecond.Max, "0")}",
                r.BytesPerSecond is { } b ? F(b.Median / MiB, "0") : "",
                l is null ? "" : F(l.P50 * 1000, "0.00"),
                l is null ? "" : F(l.P99 * 1000, "0.00"),
                l is null ? "" : F(l.Max * 1000, "0.0"),
                r.BadResponses?.ToString(CultureInfo.InvariantCulture) ?? "",
                (r.SocketErrors ?? 0).ToString(CultureInfo.InvariantCulture),
                k?.CpuPercent is { } cpu ? F(cpu, "0") : "",
                r.Server?.CpuSecondsPerResponse is { } cpuPerResponse ? F(cpuPerResponse * 1e6, "0.0") : "",
                k?.AllocationBytesPerSecond is { } alloc ? F(alloc / MiB, "0.0") : "",
                r.Server?.AllocatedBytesPerTransfer is { } perResponse ? F(perResponse / 1024, "0.00") : "",
                k?.Gen0Collections is { } g0 ? $"{g0}/{k.Gen1Collections}/{k.Gen2Collections}" : "",
                k?.ThreadPoolThreads?.ToString(CultureInfo.InvariantCulture) ?? "",
                r.FirstRequestSeconds is { } first ? F(first * 1000, "0.0") : "",
                Published(r),
                r.Published is { } p ? F(r.RequestsPerSecond.Median / p.Value, "0.00") + "×" : "",
            ]);
        }

        return rows;
    }

    /// <summary>Every fifth second of each threads scenario: the study's picture in numbers.</summary>
    private static void AppendTimelines(StringBuilder text, BenchReport report)
    {
        foreach (var r in report.Results.Where(r => r.Suite == "threads" && r.Series is { Count: > 0 }))
        {
            text.AppendLine();
            text.AppendLine($"{r.Scenario}: t  conns  done/s  p99 s  tp threads  queue  cpu %");
            foreach (var p in r.Series!.Where(p => p.Second % 5 == 4 || p.Second == r.Series![^1].Second))
            {
                text.AppendLine(string.Create(CultureInfo.InvariantCulture,
                    $"  {p.Second + 1,4}s {p.Connections,5} {p.Completions,7} {(p.P99Seconds is { } p99 ? p99.ToString("0.00", CultureInfo.InvariantCulture) : "-"),6} {p.ThreadPoolThreads?.ToString(CultureInfo.InvariantCulture) ?? "-",11} {p.ThreadPoolQueueLength?.ToString(CultureInfo.InvariantCulture) ?? "-",6} {(p.CpuPercent is { } cpu ? cpu.ToString("0", CultureInfo.InvariantCulture) : "-"),6}"));
            }
        }
    }

    /// <summary>
    /// The transfer rows with a last column of the server's instructions per byte, where perf counted any (rows are in
    /// <see cref="ScenarioResult"/> order, the header first); unchanged where it counted none.
    /// </summary>
    private static List<string[]> WithInstructions(List<string[]> rows, BenchReport report)
    {
        var transfers = report.Results.Where(r => r.Suite is "transfer" or "files" or "tus").ToList();
        if (!transfers.Any(r => r.Server?.InstructionsPerByte is not null))
        {
            return rows;
        }

        List<string[]> widened = [[.. rows[0], "srv instr/B"]];
        for (var i = 0; i < transfers.Count; i++)
        {
            widened.Add([.. rows[i + 1], transfers[i].Server?.InstructionsPerByte is { } perByte ? F(perByte, "0.00") : ""]);
        }

        return widened;
    }

    /// <summary>Server CPU per GiB; where Freight relays to an S3 server, the S3 server's share in brackets.</summary>
    private static string ServerCpu(SideCost? server) => server?.CpuSecondsPerGiB is not { } total
        ? ""
        : server.StoreCpuSecondsPerGiB is { } store && Math.Abs(total - store) > 0.005
            ? $"{F(total, "0.00")} (S3 {F(store, "0.00")})"
            : F(total, "0.00");

    /// <summary>
    /// The goal's verdict: from the interval when there is one (met, MISSED, inconclusive); else the one figure
    /// against the goal, said to be no more than that.
    /// </summary>
    internal static string GoalText(RatioResult ratio) => ratio.Verdict switch
    {
        "met" => "met",
        "missed" => "MISSED",
        "inconclusive" => "inconclusive",
        _ => ratio.GoalMet switch { true => "met (no interval)", false => "MISSED (no interval)", null => "not measured" },
    };

    /// <summary>Nothing for a 95 % interval (the column's); the level otherwise (a goal given adaptive runs: 99.5 %).</summary>
    internal static string LevelNote(Verdicts.RatioInterval interval) =>
        interval.Level == Verdicts.RatioStatistics.Level ? "" : " at " + F(interval.Level * 100, "0.#") + "%";

    internal static string RatioFigure(double v, string unit) =>
        F(v, unit == " GB/s" ? "0.0" : unit != "×" ? "0" : Math.Abs(v) < 0.1 ? "0.0000" : Math.Abs(v) < 10 ? "0.000" : "0.0");

    private static string Published(ScenarioResult r) => r.Published is { } p ? $"{F(p.Value, "0.#")} {p.Unit} ({p.Label})" : "";

    private static string F(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);

    private static void AppendTable(StringBuilder text, List<string[]> rows)
    {
        var widths = new int[rows[0].Length];
        foreach (var row in rows)
        {
            for (var i = 0; i < row.Length; i++)
            {
                widths[i] = Math.Max(widths[i], row[i].Length);
            }
        }

        for (var r = 0; r < rows.Count; r++)
        {
            var line = new StringBuilder();
            for (var i = 0; i < rows[r].Length; i++)
            {
                // Text columns left-aligned, figures right-aligned.
                line.Append(i < 2 ? rows[r][i].PadRight(widths[i]) : rows[r][i].PadLeft(widths[i]));
                line.Append(i + 1 < rows[r].Length ? "  " : "");
            }

            text.AppendLine(line.ToString().TrimEnd());
            if (r == 0)
            {
                text.AppendLine(new string('-', widths.Sum() + (2 * (widths.Length - 1))));
            }
        }
    }
}
