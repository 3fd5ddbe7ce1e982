using System.Globalization;
using Freight.Bench.Client;
using Freight.Bench.Load.Blame;
using Freight.Bench.Load.Command;
using Freight.Bench.Results;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// Builds the report of one or more loaded result files (<see cref="CompareCommand.LoadAsync"/>): a runs table
/// (machine and settings), then per file and suite a bar chart of our variants, the peers and the published
/// figures; for load scenarios latency percentile curves and, where the row has per-second samples, requests/s,
/// p99, thread pool threads and CPU over time; the ratios; and with several files the compare tables.
/// </summary>
public static class ReportBuilder
{
    /// <summary>The header of the tables' interval columns (a goal given adaptive runs says "at 99.5%" in its cell).</summary>
    private const string IntervalHeader = "95% interval";

    private static readonly string[] s_percentiles = ["p50", "p75", "p90", "p99", "p99.9", "max"];

    public static ReportModel Build(IReadOnlyList<CompareSource> sources, double noisePercent = CompareReport.DefaultNoisePercent)
    {
        ArgumentNullException.ThrowIfNull(sources);
        if (sources.Count == 0)
        {
            throw new ArgumentException("A report needs at least one result file.", nameof(sources));
        }

        var ids = new ReportIds();
        var several = sources.Count > 1;
        var sections = new List<ReportSection> { RunsSection(sources, ids) };
        foreach (var source in sources)
        {
            // With several files every heading and id says which file it is about.
            var file = new FilePrefix(several ? source.Name + ": " : "", several ? Path.GetFileNameWithoutExtension(source.Name) + " " : "");
            foreach (var suite in source.Report.Results.GroupBy(r => r.Suite, StringComparer.Ordinal))
            {
                sections.Add(SuiteSection(suite.Key, [.. suite], file, ids));
            }

            if (source.Report.Ratios.Count > 0)
            {
                sections.Add(RatiosSection(source.Report.Ratios, file, ids));
            }

            // Result files from before the A/A controls have none: their report is as it was.
            if (source.Report.SuiteChecks.Count > 0)
            {
                sections.Add(NoiseSection(source.Report, file, ids));
            }
        }

        if (several)
        {
            sections.Add(CompareSection(sources, noisePercent, ids));
            if (GoalAcrossRuns.Of(sources.Select(s => s.Report.Ratios)) is { Count: > 0 } acrossRuns)
            {
                sections.Add(AcrossRunsSection(acrossRuns, ids));
            }
        }

        var names = sources.Select(s => s.Name).ToArray();
        return new ReportModel("Freight bench report — " + string.Join(", ", names), names, sections);
    }

    /// <summary>A scenario under load: requests/s and latency percentiles over every response.</summary>
    public static bool IsLoad(ScenarioResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        return result.RequestsPerSecond is not null && result.LatencySeconds is not null;
    }

    /// <summary>How a row is named in charts: the scenario id and, when there is one, the parameters' label.</summary>
    public static string Category(ScenarioResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var label = CompareKey.LabelOf(result);
        return label.Length == 0 ? result.Scenario : $"{result.Scenario} — {label}";
    }

    private static ReportSection RunsSection(IReadOnlyList<CompareSource> sources, ReportIds ids)
    {
        var table = new ReportTable(ids.Take("runs"), "machine and settings", ["", .. sources.Select(s => s.Name)]);
        void Row(string name, Func<BenchReport, ReportCell> cell) => table.Add([ReportCell.Of(name), .. sources.Select(s => cell(s.Report))]);

        Row("started", r => ReportCell.Of(r.StartedAt.ToString("yyyy-MM-dd HH:mm:ss zzz", CultureInfo.InvariantCulture)));
        Row("tool", r => ReportCell.Of($"{r.Tool} {r.Version}"));
        Row("every scenario verified", r => ReportCell.Of(r.Verified ? "yes" : "NO"));
        Row("scenarios", r => ReportCell.Of(r.Results.Count, integer: true));
        Row("cpus", r => ReportCell.Of(r.Machine?.Cpus, integer: true));
        Row("processor", r => ReportCell.Of(r.Machine?.Processor));
        Row("os", r => ReportCell.Of(r.Machine?.Os));
        Row("runtime", r => ReportCell.Of(r.Machine?.Runtime));
        Row("suites", r => ReportCell.Of(r.Settings is null ? "" : string.Join(", ", r.Settings.Suites ?? [])));
        Row("quick", r => ReportCell.Of(r.Settings is null ? "" : r.Settings.Quick ? "yes" : "no"));
        Row("runs per scenario", r => ReportCell.Of(r.Settings?.Runs, integer: true));
        Row("run (s)", r => ReportCell.Of(r.Settings?.RunSeconds));
        Row("warm-up (s)", r => ReportCell.Of(r.Settings?.WarmupSeconds));
        Row("payload", r => ReportCell.Of(r.Settings is null ? "" : r.Settings.Suites is ["load"] && r.Results is [var load] ? LoadPayload(load) : SizeText.Format(r.Settings.PayloadBytes)));
        Row("cpu affinity", r => ReportCell.Of(r.Settings is null ? "" : r.Settings.CpuAffinity ? "yes" : "no"));
        Row("target", r => ReportCell.Of(r.Settings?.Target));
        // Only for runs that recorded them (issue 19 on), so older reports keep their table: which rows a run measured
        // and which cost measures its machine offered.
        if (sources.Any(s => s.Report.Measures is not null))
        {
            Row("rows", r => ReportCell.Of(r.Settings is null ? "" : (r.Settings.Quick ? "--quick" : r.Settings.Full ? "--full (every row)" : r.Measures is null ? "every row" : "headline rows (default)") + (r.Settings.Filter is { } filter ? $", --filter {filter}" : "")));
            Row("cost measures", r => ReportCell.Of(r.Measures is { } m ? m.Describe()["measures: ".Length..] : ""));
        }

        // Only for runs that recorded it: the parsers' and hashes' GB/s follow the vector width (MachineInfo.VectorBits).
        if (sources.Any(s => s.Report.Machine?.VectorBits is not null))
        {
            Row("vector width", r => ReportCell.Of(r.Machine?.VectorBits is { } bits ? $"{bits} bits" : ""));
        }

        // Only when a run used S3: older result files and disk runs keep their table (and the golden files) as they were.
        if (sources.Any(s => s.Report.Settings?.S3Server is not null))
        {
            Row("files store", r => ReportCell.Of(r.Settings?.S3Server is { } s3 ? $"{r.Settings.Store}: {s3}" : r.Settings?.Store));
        }

        if (sources.Any(s => s.Report.SuiteChecks.Count > 0))
        {
            Row("A/A controls", r => ReportCell.Of(r.SuiteChecks.Count == 0 ? "" : r.Unreliable ? "UNRELIABLE: an A/A interval excludes 1.0" : "every one holds 1.0"));
        }

        return new ReportSection(table.Id, "Runs", "", [new ReportFigure(table)], []);
    }

    private static ReportSection SuiteSection(string suite, IReadOnlyList<ScenarioResult> rows, FilePrefix file, ReportIds ids)
    {
        var study = SuiteStudy.For(suite);
        var figures = new List<ReportFigure>();

        // freight load's parameters (url, method, connections, …: ~200 characters as a label) go in a table of their own,
        // once; its headings then carry none. Rows measured with different ones keep them, to tell their figures apart.
        var parametersOnce = study.OneLoadRun && rows.Select(CompareKey.LabelOf).Distinct(StringComparer.Ordinal).Count() == 1;
        Func<ScenarioResult, string> label = parametersOnce ? _ => "" : CompareKey.LabelOf;
        if (study.OneLoadRun)
        {
            figures.Add(LoadOutcomeFigure(suite, rows, file, ids));
            if (parametersOnce)
            {
                figures.Add(ParametersFigure(suite, rows, file, ids));
            }
        }

        var groups = study.ChartPer is { } chartPer
            ? rows.GroupBy(chartPer).Select(g => (Title: g.Key, Rows: g.ToArray())).ToArray()
            : [(Title: (string?)null, Rows: rows.ToArray())];
        foreach (var (title, group) in groups)
        {
            figures.Add(BarFigure(suite, study, groups.Length > 1 ? title : null, group, file, ids, withParameters: !parametersOnce));
        }

        foreach (var group in rows.Where(IsLoad).GroupBy(label, StringComparer.Ordinal))
        {
            figures.Add(LatencyFigure(suite, group.Key, [.. group], file, ids));
        }

        foreach (var group in rows.Where(r => r.Series is { Count: > 0 }).GroupBy(label, StringComparer.Ordinal))
        {
            figures.AddRange(TimelineFigures(suite, group.Key, [.. group], file, ids));
        }

        return new ReportSection(ids.Take(file.Id + suite), file.Title + study.Title, study.Note, figures, []);
    }

    /// <summary>
    /// What freight load is for, a column a row: which side saturated and why, what was answered, each side's CPU per GiB
    /// (or why there is none) and per response, and the failures by kind with why the first failed.
    /// </summary>
    private static ReportFigure LoadOutcomeFigure(string suite, IReadOnlyList<ScenarioResult> rows, FilePrefix file, ReportIds ids)
    {
        var table = new ReportTable(ids.Take($"{file.Id}{suite} outcome"), "verdict, costs and failures", ["", .. rows.Select(r => r.Scenario)]);
        void Row(string name, Func<ScenarioResult, ReportCell> cell) => table.Add([ReportCell.Of(name), .. rows.Select(cell)]);

        Row("verdict", r => ReportCell.Of(r.Blame?.Verdict ?? "none"));
        Row("why", r => ReportCell.Of(r.Blame?.Reason));
        Row("responses", r => ReportCell.Of(r.StatusCodes is { Count: > 0 } codes
            ? $"{ReportNumber.Format(r.Transfers, integer: true)} ({string.Join(", ", codes.Select(c => $"{c.Key}×{ReportNumber.Format(c.Value, integer: true)}"))})"
            : ReportNumber.Format(r.Transfers, integer: true)));
        Row("failures", r => ReportCell.Of(r.Failures is { Count: > 0 } failures
            ? string.Join(", ", failures.Select(f => $"{f.Key} {ReportNumber.Format(f.Value, integer: true)}")) + (r.FirstFailure is { } first ? $" — first: {first.Message}" : "")
            : "none"));
        Row("server CPU (s/GiB)", r => CostPerGiB(r, r.Server?.CpuSecondsPerGiB, r.Server is null ? "no --server-pid" : null));
        var throughProxy = rows.Any(r => r.Blame?.Proxy is not null);
        if (throughProxy)
        {
            Row("proxy CPU (s/GiB)", r => CostPerGiB(r, r.Blame?.Proxy?.CpuSecondsPerGiB, ProxyUnmeasured(r.Blame?.Proxy)));
        }

        Row("client CPU (s/GiB)", r => CostPerGiB(r, r.Client?.CpuSecondsPerGiB, r.Client is null ? "no --server-pid" : null));
        Row("server CPU per response (ms)", r => ReportCell.Of(r.Server?.CpuSecondsPerResponse * 1000));
        if (throughProxy)
        {
            Row("proxy CPU per response (ms)", r => ReportCell.Of(r.Blame?.Proxy?.CpuSecondsPerResponse * 1000));
        }

        Row("client CPU per response (ms)", r => ReportCell.Of(r.Client?.CpuSecondsPerResponse * 1000));
        if (throughProxy)
        {
            // What the proxy's figures are of: its processes (nginx's master and workers, summed), their share of the
            // cores and resident set, as the summary's proxy line says them.
            Row("proxy", r => ReportCell.Of(r.Blame?.Proxy is { } proxy ? ProxyText(proxy) : "– (no --through-proxy)"));
        }

        return new ReportFigure(table);
    }

    /// <summary>Why a proxy has no figures: none was named, or its processes could not be sampled; null when it was measured.</summary>
    private static string? ProxyUnmeasured(LoadProxy? proxy) => proxy switch
    {
        null => "no --through-proxy",
        { CpuCores: null } => $"PID {proxy.ProcessId.ToString(CultureInfo.InvariantCulture)} could not be sampled",
        _ => null,
    };

    /// <summary>"PID 24884 and 2 workers: 41 % of 200 %, RSS max 15.8 MiB, threads max 3"; "exited during the run" when one of its processes did.</summary>
    private static string ProxyText(LoadProxy proxy)
    {
        var processes = proxy.WorkerProcessIds is { Count: > 0 } workers
            ? $"PID {proxy.ProcessId.ToString(CultureInfo.InvariantCulture)} and {CountText.Format(workers.Count, "worker")}"
            : $"PID {proxy.ProcessId.ToString(CultureInfo.InvariantCulture)}";
        if (proxy.Exited is true)
        {
            return processes + ": exited during the run";
        }

        return proxy.CpuCores is not { } cores
            ? processes + ": could not be sampled"
            : string.Create(CultureInfo.InvariantCulture,
                $"{processes}: {SaturationRule.Share(cores, proxy.AllowedCpus ?? 1)}, RSS max {(proxy.WorkingSetBytesMax is { } rss ? ReportNumber.Format(rss / (1024.0 * 1024)) : "–")} MiB, threads max {proxy.ThreadsMax}");
    }

    /// <summary>
    /// A side's CPU per GiB (<paramref name="perGiB"/>), or why it has none: <paramref name="unmeasured"/> (no server named to
    /// sample, say), or too few bytes moved for the figure to mean anything.
    /// </summary>
    private static ReportCell CostPerGiB(ScenarioResult row, double? perGiB, string? unmeasured)
    {
        if (perGiB is { } cost)
        {
            return ReportCell.Of(cost);
        }

        if (unmeasured is not null)
        {
            return ReportCell.Of($"– ({unmeasured})");
        }

        var moved = row.BytesPerSecond?.Median * (row.Transfers / row.RequestsPerSecond?.Median);
        return ReportCell.Of(moved is { } bytes && double.IsFinite(bytes)
            ? $"– ({TransferUnits.Bytes((long)Math.Round(bytes))} moved; it needs {LoadReport.MinimumCostBytes >> 20} MiB)"
            : "–");
    }

    /// <summary>The rows' parameters, one a line, a column a row: said once, so the headings need not repeat them.</summary>
    private static ReportFigure ParametersFigure(string suite, IReadOnlyList<ScenarioResult> rows, FilePrefix file, ReportIds ids)
    {
        var table = new ReportTable(ids.Take($"{file.Id}{suite} parameters"), "parameters", ["parameter", .. rows.Select(r => r.Scenario)]);
        var values = rows.Select(r => r.Parameters.Texts().ToDictionary(p => p.Key, p => p.Value, StringComparer.Ordinal)).ToArray();
        foreach (var key in rows.SelectMany(r => r.Parameters.Texts().Select(p => p.Key)).Distinct(StringComparer.Ordinal))
        {
            table.Add([ReportCell.Of(key), .. values.Select(v => ReportCell.Of(v.GetValueOrDefault(key)))]);
        }

        return new ReportFigure(table);
    }

    /// <summary>
    /// What a freight load request moved: its body (<c>--size</c>, <c>--file</c>), or for a GET the mean response body,
    /// bytes over responses (the result's MiB/s over its requests/s), which the run's settings hold as 0.
    /// </summary>
    private static string LoadPayload(ScenarioResult row)
    {
        if (row.Parameters.PayloadBytes is { } request)
        {
            return $"{TransferUnits.Bytes(request)} a request";
        }

        var perResponse = row.BytesPerSecond?.Median / row.RequestsPerSecond?.Median;
        return perResponse is { } bytes && double.IsFinite(bytes) ? $"{TransferUnits.Bytes((long)Math.Round(bytes))} a response" : "none";
    }

    private static ReportFigure BarFigure(string suite, SuiteStudy study, string? groupTitle, ScenarioResult[] rows, FilePrefix file, ReportIds ids, bool withParameters = true)
    {
        var metric = BarMetric.Choose(rows, study.Metrics) ?? study.Metrics[0];
        var title = $"{metric.Name} ({metric.Unit})" + (groupTitle is null ? "" : $" — {groupTitle}");
        var id = ids.Take($"{file.Id}{suite} {metric.Name} {groupTitle}");
        var withErrors = rows.Any(r => r.Error is not null);
        var headers = new List<string> { "scenario" };
        if (withParameters)
        {
            headers.Add("parameters");
        }

        headers.Add($"{metric.Name} ({metric.Unit})");
        if (metric.HasRange)
        {
            headers.AddRange(["min", "max"]);
        }

        // The published columns only where the study published something for these rows.
        var withPublished = rows.Any(r => r.Published is not null);
        if (withPublished)
        {
            headers.AddRange([$"published ({metric.Unit})", "published figure", "ours / published"]);
        }

        headers.Add("verified");
        if (withErrors)
        {
            headers.Add("error");
        }

        var table = new ReportTable(id, title, headers);
        var bars = new List<ChartBar>();
        foreach (var row in rows)
        {
            var category = Category(row);
            var median = Finite(metric.Median(row));
            var sameUnit = row.Published is { } p && string.Equals(p.Unit, metric.Unit, StringComparison.Ordinal);
            var published = sameUnit ? row.Published!.Value : (double?)null;
            if (median is { } value)
            {
                var kind = row.Scenario.StartsWith("peer/", StringComparison.Ordinal) ? BarKind.Peer
                    : row.Scenario.StartsWith("tcp/", StringComparison.Ordinal) ? BarKind.Reference
                    : BarKind.Ours;
                bars.Add(new ChartBar(category, kind, value, Finite(metric.Min?.Invoke(row)), Finite(metric.Max?.Invoke(row))));
            }

            if (published is { } figure)
            {
                bars.Add(new ChartBar(category, BarKind.Published, figure, Note: PublishedNote(row.Published!, withValue: false)));
            }

            var cells = new List<ReportCell> { ReportCell.Of(row.Scenario) };
            if (withParameters)
            {
                cells.Add(ReportCell.Of(CompareKey.LabelOf(row)));
            }

            cells.Add(ReportCell.Of(median));
            if (metric.HasRange)
            {
                cells.Add(ReportCell.Of(median is null ? null : Finite(metric.Min!(row))));
                cells.Add(ReportCell.Of(median is null ? null : Finite(metric.Max!(row))));
            }

            if (withPublished)
            {
                cells.Add(ReportCell.Of(published));
                cells.Add(ReportCell.Of(row.Published is { } q ? PublishedNote(q, withValue: !sameUnit) : ""));
                cells.Add(ReportCell.Of(median / published, suffix: "×"));
            }

            cells.Add(ReportCell.Of(row.Verified ? "yes" : "NO"));
            if (withErrors)
            {
                cells.Add(ReportCell.Of(row.Error));
            }

            table.Add([.. cells]);
        }

        return new ReportFigure(table, new BarChart(id, title, metric.Unit, bars));
    }

    private static ReportFigure LatencyFigure(string suite, string label, ScenarioResult[] rows, FilePrefix file, ReportIds ids)
    {
        var (unit, scale) = LatencyUnit(rows.Max(r => r.LatencySeconds!.Max));
        var title = $"latency percentiles ({unit})" + (label.Length == 0 ? "" : $" — {label}");
        var id = ids.Take($"{file.Id}{suite} latency {label}");
        // p99.9 and the mean only where the source measured them (the load engine; wrk has a mean, no p99.9).
        var withP999 = rows.Any(r => r.LatencySeconds!.P999 is not null);
        var withMean = rows.Any(r => r.LatencySeconds!.Mean is not null);
        var percentiles = withP999 ? s_percentiles : s_percentiles.Where(p => p != "p99.9").ToArray();
        var table = new ReportTable(id, title, ["scenario", .. percentiles, .. withMean ? new[] { "mean" } : []]);
        var series = new List<ChartSeries>();
        foreach (var row in rows)
        {
            var l = row.LatencySeconds!;
            double?[] values = withP999 ? [l.P50, l.P75, l.P90, l.P99, l.P999, l.Max] : [l.P50, l.P75, l.P90, l.P99, l.Max];
            var points = new List<ChartPoint>();
            for (var i = 0; i < values.Length; i++)
            {
                if (Finite(values[i]) is { } v)
                {
                    points.Add(new ChartPoint(i, v * scale));
                }
            }

            series.Add(new ChartSeries(row.Scenario, points));
            table.Add([ReportCell.Of(row.Scenario), .. values.Select(v => ReportCell.Of(v * scale)), .. withMean ? new[] { ReportCell.Of(l.Mean * scale) } : []]);
        }

        return new ReportFigure(table, new LineChart(id, title, unit, "percentile", series, percentiles));
    }

    private static IEnumerable<ReportFigure> TimelineFigures(string suite, string label, ScenarioResult[] rows, FilePrefix file, ReportIds ids)
    {
        var (latencyUnit, scale) = LatencyUnit(rows.SelectMany(r => r.Series!).Max(p => p.P99Seconds ?? 0));
        (string Name, string Unit, Func<SeriesPoint, double?> Value)[] metrics =
        [
            ("responses per second", "responses/s", p => p.Completions),
            ("p99 latency per second", latencyUnit, p => p.P99Seconds * scale),
            ("thread pool threads", "threads", p => p.ThreadPoolThreads),
            ("server CPU", "%", p => p.CpuPercent),
        ];
        var suffix = label.Length == 0 ? "" : $" — {label}";
        foreach (var (name, unit, value) in metrics)
        {
            var series = rows.Select(r => new ChartSeries(
                r.Scenario,
                [.. r.Series!.Where(p => Finite(value(p)) is not null).OrderBy(p => p.Second).Select(p => new ChartPoint(p.Second, value(p)!.Value))])).ToArray();
            if (series.All(s => s.Points.Count == 0))
            {
                continue;
            }

            var title = $"{name} ({unit}){suffix}";
            var id = ids.Take($"{file.Id}{suite} {name} {label}");
            var table = new ReportTable(id, title, ["second", .. rows.Select(r => r.Scenario)]);
            var seconds = rows.SelectMany(r => r.Series!).Select(p => p.Second).Distinct().Order();
            var bySecond = rows.Select(r => r.Series!.GroupBy(p => p.Second).ToDictionary(g => g.Key, g => g.First())).ToArray();
            foreach (var second in seconds)
            {
                table.Add([ReportCell.Of(second, integer: true), .. bySecond.Select(s => ReportCell.Of(s.TryGetValue(second, out var p) ? Finite(value(p)) : null))]);
            }

            yield return new ReportFigure(table, new LineChart(id, title, unit, "second", series));
        }
    }

    private static ReportSection RatiosSection(IReadOnlyList<RatioResult> ratios, FilePrefix file, ReportIds ids)
    {
        var id = ids.Take(file.Id + "ratios");
        var table = new ReportTable(id, "ratios", ["ratio", "numerator", "denominator", "ours", IntervalHeader, "study", "goal", "verdict"]) { IntervalColumn = IntervalHeader };
        foreach (var r in ratios)
        {
            // The goal as the console writes it (≥ 1.5×): a set figure, not a measured one.
            var goal = r.Goal is { } g ? $"{(r.LowerIsBetter ? "≤" : "≥")} {g.ToString("0.0##", CultureInfo.InvariantCulture)}{r.Unit}" : "";
            var interval = r.Interval;
            table.Add(
                ReportCell.Of(r.Name),
                ReportCell.Of(r.Numerator),
                ReportCell.Of(r.Denominator),
                ReportCell.Of(Finite(interval?.Estimate ?? r.Value), suffix: r.Unit),
                ReportCell.Of(interval, r.Unit),
                ReportCell.Of(Finite(r.Published), suffix: r.Unit),
                ReportCell.Of(goal),
                ReportCell.Of(r.Goal is null ? "" : r.VerdictNote is { } note ? $"{ConsoleReport.GoalText(r)} ({note})" : ConsoleReport.GoalText(r)));
        }

        return new ReportSection(
            id,
            file.Title + "ratios",
            "The ratios the studies drew and the goals Freight set, each measured within this one run; where both rows kept their runs, " +
            "ours is the interval's estimate and the goal's verdict comes from the 95% interval (docs/bench.md, Intervals and verdicts).",
            [new ReportFigure(table)],
            []);
    }

    /// <summary>Each suite's A/A control (its noise floor) and why its runs ended; the run flagged when an A/A failed.</summary>
    private static ReportSection NoiseSection(BenchReport report, FilePrefix file, ReportIds ids)
    {
        var id = ids.Take(file.Id + "noise");
        var table = new ReportTable(id, "A/A controls and runs", ["suite", "A/A", "ours", IntervalHeader, "noise floor", "holds 1.0", "runs", "runs ended"]) { IntervalColumn = IntervalHeader };
        foreach (var check in report.SuiteChecks)
        {
            var interval = check.Control?.Interval;
            table.Add(
                ReportCell.Of(check.Suite),
                ReportCell.Of(check.Control is { } control ? $"{control.Numerator} / {control.Denominator}" : "none"),
                ReportCell.Of(Finite(interval?.Estimate ?? check.Control?.Value), suffix: "×"),
                ReportCell.Of(interval, "×"),
                ReportCell.Of(check.NoiseFloor is { } floor ? "±" + ReportNumber.Format(floor * 100) + " %" : ""),
                ReportCell.Of(interval is null ? "no interval" : check.Unreliable ? "NO: UNRELIABLE" : "yes"),
                ReportCell.Of(check.Passes, integer: true),
                ReportCell.Of(check.Stop));
        }

        return new ReportSection(
            id,
            file.Title + "noise floor",
            (report.Unreliable ? SuiteCheck.UnreliableText + ". " : "") +
            "Each suite measures one scenario twice under two ids (the copy ends in #a); their ratio's interval must hold 1.0, and its half-width is the " +
            "smallest difference the run can tell. Runs ended: conclusive (every goal met or missed), time-cap, run-ceiling, or off (docs/bench.md, A/A control, Adaptive runs).",
            [new ReportFigure(table)],
            []);
    }

    /// <summary>The goals several of the files measured, each judged on the interval across those runs.</summary>
    private static ReportSection AcrossRunsSection(IReadOnlyList<GoalAcrossRuns> goals, ReportIds ids)
    {
        var id = ids.Take("goals across runs");
        var table = new ReportTable(id, "goals across runs", ["goal", "runs", "each run: min–median–max", "each run: met / MISSED / inconclusive", "across runs", IntervalHeader, "verdict"]) { IntervalColumn = IntervalHeader };
        foreach (var goal in goals)
        {
            var latest = goal.Latest;
            var verdicts = goal.Runs.Select(r => r.Verdict).ToList();
            var withoutInterval = verdicts.Count(v => v is null);
            var interval = goal.Pooled.Interval;
            table.Add(
                ReportCell.Of($"{latest.Name} {(latest.LowerIsBetter ? "≤" : "≥")} {latest.Goal!.Value.ToString("0.0##", CultureInfo.InvariantCulture)}{latest.Unit}"),
                ReportCell.Of(goal.Runs.Count, integer: true),
                ReportCell.Of($"{ReportNumber.Format(goal.Estimates.Min())}–{ReportNumber.Format(RatioStatistics.Median(goal.Estimates))}–{ReportNumber.Format(goal.Estimates.Max())}{latest.Unit}"),
                ReportCell.Of($"{verdicts.Count(v => v == "met")} / {verdicts.Count(v => v == "missed")} / {verdicts.Count(v => v == "inconclusive")}" +
                    (withoutInterval > 0 ? $" ({withoutInterval} without an interval)" : "")),
                ReportCell.Of(Finite(interval?.Estimate), suffix: latest.Unit),
                ReportCell.Of(interval, latest.Unit),
                ReportCell.Of(ConsoleReport.GoalText(goal.Pooled)));
        }

        return new ReportSection(
            id,
            "goals across runs",
            "Each goal that two or more of these files measured, judged across them: every run's estimate is one observation, and the 95% " +
            "interval is a t interval on their logs, so it holds how much one run differs from the next, which one run's interval cannot " +
            "(its pairs share a server and a client process). Give it repeats of one build and one command (docs/bench.md, freight report).",
            [new ReportFigure(table)],
            []);
    }

    private static ReportSection CompareSection(IReadOnlyList<CompareSource> sources, double noisePercent, ReportIds ids)
    {
        var (tables, unmatched) = CompareReport.FileTables(sources, markdown: true, noisePercent);
        var figures = new List<ReportFigure>();
        foreach (var compared in tables)
        {
            var table = new ReportTable(ids.Take("compare " + compared.Title), compared.Title, compared.Headers);
            foreach (var row in compared.Rows)
            {
                table.Add([.. row.Select(ReportCell.Of)]);
            }

            figures.Add(new ReportFigure(table));
        }

        var notes = new List<string>();
        if (tables.Count == 0)
        {
            notes.Add(CompareReport.NoCommonScenario);
        }

        notes.AddRange(tables.SelectMany(t => t.Notes.Select(note => $"{t.Title}: {note}")));
        notes.AddRange(unmatched);
        notes.AddRange(CompareReport.Legends(tables, noisePercent));

        return new ReportSection(
            ids.Take("compare"),
            "compare",
            $"As freight compare: one table per scenario found in {sources[0].Name} and another file, each change against {sources[0].Name}.",
            figures,
            notes);
    }

    private static string PublishedNote(PublishedFigure figure, bool withValue)
    {
        var note = $"{figure.Label}, study {figure.Study.ToString(CultureInfo.InvariantCulture)}";
        return withValue ? $"{ReportNumber.Format(figure.Value)} {figure.Unit}: {note}" : note;
    }

    /// <summary>Milliseconds while everything is under a second, seconds beyond.</summary>
    private static (string Unit, double Scale) LatencyUnit(double maxSeconds) => maxSeconds < 1 ? ("ms", 1000) : ("s", 1);

    private static double? Finite(double? value) => value is { } v && double.IsFinite(v) ? v : null;

    /// <summary>What a file's headings and ids start with when the report covers several files.</summary>
    private readonly record struct FilePrefix(string Title, string Id);
}
