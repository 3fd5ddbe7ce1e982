using System.Globalization;
using System.Text;
using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>
/// <c>freight compare</c>'s tables, crank-style: one column per result file (or per scenario of one run), one
/// row per metric, each later column with its change against the first and a mark when that change is an
/// improvement (✓) or a regression (✗) beyond the noise band.
/// </summary>
public static class CompareReport
{
    public const string Better = "✓";

    public const string Worse = "✗";

    /// <summary>
    /// Changes smaller than this (in %) are shown but not marked. 1% keeps rounding and a quiet machine's wobble
    /// unmarked; the min–max spread of a 2-core run is often wider, so <c>--noise</c> can raise it.
    /// </summary>
    public const double DefaultNoisePercent = 1;

    /// <summary>The rows that follow the load rather than judge it (<see cref="CompareDirection.None"/>).</summary>
    internal static string Neutral => string.Join(", ", CompareMetrics.All.Where(m => m.Direction == CompareDirection.None).Select(m => m.Name));

    internal const string NoCommonScenario = "no scenario appears in the first file and another";

    /// <summary>Compares files: results matched by scenario id and label; the first source is the base.</summary>
    public static string CompareFiles(IReadOnlyList<CompareSource> sources, bool markdown = false, double noisePercent = DefaultNoisePercent)
    {
        var (tables, unmatched) = FileTables(sources, markdown, noisePercent);
        return Render(tables, unmatched, markdown, noisePercent, NoCommonScenario);
    }

    /// <summary>What <see cref="CompareFiles"/> renders: a table per scenario found in the first file and another, and the scenarios left unmatched.</summary>
    internal static (List<CompareTable> Tables, List<string> Unmatched) FileTables(IReadOnlyList<CompareSource> sources, bool markdown, double noisePercent)
    {
        ArgumentNullException.ThrowIfNull(sources);
        if (sources.Count < 2)
        {
            throw new ArgumentException("Comparing files needs at least two.", nameof(sources));
        }

        var headers = sources.Select(s => s.Name).ToArray();
        var indexes = sources.Select(s => Index(s.Report.Results, CompareKey.Of)).ToArray();
        var tables = new List<CompareTable>();
        var unmatched = new List<string>();
        foreach (var key in indexes[0].Keys)
        {
            var columns = indexes.Select(i => i.GetValueOrDefault(key)).ToArray();
            if (columns.Skip(1).All(c => c is null))
            {
                unmatched.Add($"only in {headers[0]}: {key}");
                continue;
            }

            tables.Add(Table(key.ToString(), headers, columns, markdown, noisePercent));
        }

        AddMissingFromBase(indexes, headers, unmatched, "");
        if (tables.Count == 0 && SingleRowsApart(sources) is { } differences)
        {
            // Before and after on two endpoints (…/upload/bad, …/upload/good), or at another -c: one row a file that no
            // key matches, but one scenario measured each time. Compare them, saying what differs.
            var table = Table(sources[0].Report.Results[0].Scenario, headers, [.. sources.Select(s => s.Report.Results[0])], markdown, noisePercent);
            table.Notes.InsertRange(0, differences);
            return ([table], []);
        }

        return (tables, unmatched);
    }

    /// <summary>
    /// When every source holds one row, all of one scenario (a <c>freight load</c> result a file): each parameter in which
    /// a row differs from the first's, "url: A → B (file)"; else null. A user's before and after differ in the URL and
    /// often in what they asked (--expect-status makes verify 'status'), and one row a file leaves no doubt which to pair.
    /// </summary>
    private static List<string>? SingleRowsApart(IReadOnlyList<CompareSource> sources)
    {
        if (sources.Any(s => s.Report.Results.Count != 1))
        {
            return null;
        }

        var first = sources[0].Report.Results[0];
        var baseTexts = first.Parameters.Texts().ToDictionary(p => p.Key, p => p.Value, StringComparer.Ordinal);
        var differences = new List<string>();
        foreach (var source in sources.Skip(1))
        {
            var row = source.Report.Results[0];
            var texts = row.Parameters.Texts().ToDictionary(p => p.Key, p => p.Value, StringComparer.Ordinal);
            var differing = baseTexts.Keys.Union(texts.Keys).Where(key => baseTexts.GetValueOrDefault(key) != texts.GetValueOrDefault(key)).ToArray();
            if (row.Scenario != first.Scenario)
            {
                return null;
            }

            differences.AddRange(differing.Select(key => $"{key}: {baseTexts.GetValueOrDefault(key) ?? "(not set)"} → {texts.GetValueOrDefault(key) ?? "(not set)"} ({source.Name})"));
        }

        return differences;
    }

    /// <summary>
    /// Compares scenarios within each source: one column per scenario id (the first is the base), results
    /// matched by their label (or, without one, all their parameters).
    /// </summary>
    public static string CompareScenarios(IReadOnlyList<CompareSource> sources, IReadOnlyList<string> scenarios, bool markdown = false, double noisePercent = DefaultNoisePercent)
    {
        ArgumentNullException.ThrowIfNull(sources);
        ArgumentNullException.ThrowIfNull(scenarios);
        if (sources.Count == 0 || scenarios.Count < 2)
        {
            throw new ArgumentException("Comparing scenarios needs a source and at least two scenarios.", nameof(scenarios));
        }

        var title = string.Join(" vs ", scenarios);
        var tables = new List<CompareTable>();
        var unmatched = new List<string>();
        foreach (var source in sources)
        {
            // With several files every heading and listing says which file it is about.
            var suffix = sources.Count > 1 ? $" ({source.Name})" : "";
            var indexes = scenarios.Select(id => Index(source.Report.Results.Where(r => r.Scenario == id), CompareKey.LabelOf)).ToArray();
            for (var i = 0; i < scenarios.Count; i++)
            {
                if (indexes[i].Count == 0)
                {
                    unmatched.Add($"not in {source.Name}: {scenarios[i]}");
                }
            }

            foreach (var label in indexes[0].Keys)
            {
                var columns = indexes.Select(i => i.GetValueOrDefault(label)).ToArray();
                if (columns.Skip(1).All(c => c is null))
                {
                    unmatched.Add($"only in {scenarios[0]}{suffix}: {label}");
                    continue;
                }

                tables.Add(Table($"{title} — {label}{suffix}", scenarios, columns, markdown, noisePercent));
            }

            AddMissingFromBase(indexes, scenarios, unmatched, suffix);
        }

        return Render(tables, unmatched, markdown, noisePercent, $"no label is measured by {scenarios[0]} and another of the scenarios");
    }

    /// <summary>The first result per key, in the order the file lists them.</summary>
    private static Dictionary<TKey, ScenarioResult> Index<TKey>(IEnumerable<ScenarioResult> results, Func<ScenarioResult, TKey> key)
        where TKey : notnull
    {
        var index = new Dictionary<TKey, ScenarioResult>();
        foreach (var result in results)
        {
            index.TryAdd(key(result), result);
        }

        return index;
    }

    /// <summary>Keys the base lacks: "only in X" when one column has them, "not in BASE" when several do.</summary>
    private static void AddMissingFromBase<TKey>(Dictionary<TKey, ScenarioResult>[] indexes, IReadOnlyList<string> names, List<string> unmatched, string suffix)
        where TKey : notnull
    {
        var seen = new HashSet<TKey>(indexes[0].Keys);
        for (var i = 1; i < indexes.Length; i++)
        {
            foreach (var key in indexes[i].Keys.Where(seen.Add))
            {
                var holders = Enumerable.Range(1, indexes.Length - 1).Where(j => indexes[j].ContainsKey(key)).ToArray();
                unmatched.Add(holders.Length == 1 ? $"only in {names[i]}{suffix}: {key}" : $"not in {names[0]}{suffix}: {key}");
            }
        }
    }

    private static CompareTable Table(string title, IReadOnlyList<string> headers, ScenarioResult?[] columns, bool markdown, double noisePercent)
    {
        var table = new CompareTable(title, ["metric", .. headers]);

        // A result that did not verify carries no figures: say so rather than leave its column blank.
        if (columns.Any(c => c is { Verified: false }))
        {
            table.Rows.Add(["verified", .. columns.Select(c => c is null ? "" : c.Verified ? "yes" : "NO")]);
        }

        // freight load results: say how much each column measured. Several runs a side (--runs) give an interval over the
        // runs for the figures kept per run (RunsInterval); single runs, and the other figures, are judged by OneRunNoise.
        table.Load = columns.Any(c => c is { Suite: "load" });
        table.OneRun = columns.Any(c => c is not null && OneRunNoise.IsOneRun(c));

        // The quiet floors only when every load result of the table was measured quiet: one floor for the whole table, as
        // its legend says (figures that several runs a side do not judge by an interval are judged by them too).
        table.QuietMachine = table.Load && columns.All(c => c is null || c.Suite != "load" || OneRunNoise.IsQuiet(c));
        if (table.Load)
        {
            table.Notes.Add("measured: " + string.Join("; ", columns.Select((c, i) => c is null ? null : RunsInterval.Measured(headers[i], c)).OfType<string>()));
        }

        foreach (var metric in CompareMetrics.All)
        {
            var values = columns.Select(c => c is null ? null : metric.Value(c)).ToArray();
            if (values.All(v => v is null))
            {
                continue;
            }

            var row = new string[values.Length + 1];
            row[0] = metric.Name;
            row[1] = values[0] is { } first ? Number(first, metric) : "-";
            for (var i = 1; i < values.Length; i++)
            {
                var (baseRow, compared) = (columns[0], columns[i]);
                var interval = table.Load && baseRow is not null && compared is not null && values[0] is not null && values[i] is not null
                    ? RunsInterval.Of(baseRow, compared, metric)
                    : null;
                Func<double, double, double, bool>? clear = interval is not null
                    ? (_, _, relative) => !interval.Contains(1.0) && Math.Abs(relative) >= noisePercent
                    : table.Load && baseRow is not null && compared is not null
                        ? (b, v, relative) => OneRunNoise.IsClear(baseRow, compared, metric, b, v, relative, noisePercent, table.QuietMachine)
                        : null;
                row[i + 1] = Cell(values[0], values[i], metric, markdown, noisePercent, clear) + (interval is null ? "" : RunsInterval.Text(interval));
                table.OverRuns |= interval is not null;
            }

            table.Rows.Add(row);
        }

        return table;
    }

    /// <summary>
    /// "101,902 (+14.18%) ✓": the value, its change against the base, and the verdict beyond the noise band; with
    /// <paramref name="clear"/> (single runs: base, value and change in % → beyond their noise), beyond that, else ≈.
    /// </summary>
    internal static string Cell(double? baseValue, double? value, CompareMetric metric, bool markdown, double noisePercent, Func<double, double, double, bool>? clear = null)
    {
        if (value is not { } v)
        {
            return "-";
        }

        if (baseValue is not { } b)
        {
            return Number(v, metric);
        }

        string change;
        double relative;
        if (b == 0)
        {
            // No percentage of zero: show the absolute difference, and any difference counts as beyond the band.
            var difference = v - b;
            change = (difference < 0 ? "-" : "+") + Number(Math.Abs(difference), metric);
            relative = difference == 0 ? 0 : difference > 0 ? double.PositiveInfinity : double.NegativeInfinity;
        }
        else
        {
            // Judge the rounded figure, so a shown "+1.00%" is marked whatever the digits behind it.
            relative = Math.Round((v - b) / Math.Abs(b) * 100, 2);
            relative = relative == 0 ? 0 : relative;
            change = relative.ToString("+#,##0.00;-#,##0.00", CultureInfo.InvariantCulture) + "%";
        }

        var beyond = clear is null ? Math.Abs(relative) >= noisePercent : clear(b, v, relative);
        var mark = metric.Direction switch
        {
            CompareDirection.None => null,
            _ when !beyond => clear is null ? null : OneRunNoise.Similar,
            CompareDirection.HigherIsBetter => relative > 0 ? Better : Worse,
            _ => relative < 0 ? Better : Worse,
        };

        // Plain text pads an unmarked cell as wide as a mark, so the right-aligned figures still line up.
        var text = $"{Number(v, metric)} ({change})";
        return mark is not null ? $"{text} {mark}" : markdown ? text : text + "  ";
    }

    private static string Number(double value, CompareMetric metric)
    {
        var magnitude = Math.Abs(value);
        var format = metric.Integer || magnitude >= 100 || value == 0 ? "N0" : magnitude >= 10 ? "N1" : magnitude >= 1 ? "N2" : "N3";
        return value.ToString(format, CultureInfo.InvariantCulture);
    }

    private static string Render(List<CompareTable> tables, List<string> unmatched, bool markdown, double noisePercent, string none)
    {
        var text = new StringBuilder();
        foreach (var table in tables)
        {
            if (markdown)
            {
                table.AppendMarkdown(text);
            }
            else
            {
                table.AppendText(text);
            }

            text.AppendLine();
        }

        if (tables.Count == 0)
        {
            text.AppendLine(none).AppendLine();
        }

        foreach (var line in unmatched)
        {
            text.AppendLine(markdown ? $"- {line}" : line);
        }

        if (unmatched.Count > 0)
        {
            text.AppendLine();
        }

        foreach (var line in Legends(tables, noisePercent))
        {
            text.AppendLine(line);
        }

        return text.ToString();
    }

    /// <summary>The lines under <paramref name="tables"/> that say what their marks mean: the bench's band, single runs' noise, intervals over runs.</summary>
    internal static IEnumerable<string> Legends(IReadOnlyList<CompareTable> tables, double noisePercent)
    {
        if (tables.Any(t => !t.Load))
        {
            yield return Legend(noisePercent);
        }

        foreach (var quiet in tables.Where(t => t.OneRun).Select(t => t.QuietMachine).Distinct().Order())
        {
            yield return OneRunNoise.Legend(noisePercent, quiet);
        }

        if (tables.Any(t => t.OverRuns))
        {
            yield return RunsInterval.Legend(noisePercent);
        }
    }

    /// <summary>The line under the tables that says what the marks mean.</summary>
    internal static string Legend(double noisePercent)
    {
        var band = noisePercent.ToString("0.##", CultureInfo.InvariantCulture);
        return $"{Better} better, {Worse} worse: a change of {band}% or more; never marked: {Neutral}";
    }
}
