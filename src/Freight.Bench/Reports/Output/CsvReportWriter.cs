using System.Text;
using Freight.Bench.Cli;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// The report's tables as CSV, one file per table named after its id (RFC 4180: a header record, CRLF line ends,
/// fields with a comma, quote or line break quoted and their quotes doubled). Figures are written in full, without
/// thousands separators, in the invariant culture; a missing figure is an empty field. An interval column becomes three
/// numeric fields, <see cref="IntervalHeaders"/>, where the other outputs write "1.61–1.88×": a CSV is read by
/// programs, which need the bounds as numbers (and the level: a goal given adaptive runs has a 99.5 % interval).
/// </summary>
public static class CsvReportWriter
{
    /// <summary>Writes <c>DIR/ID.csv</c> for every table of the report; returns the paths, in report order.</summary>
    public static async Task<IReadOnlyList<string>> WriteAsync(ReportModel model, string directory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(model);
        ArgumentException.ThrowIfNullOrEmpty(directory);
        Directory.CreateDirectory(directory);
        var files = model.Tables.Select(table => KeyValuePair.Create(Path.Combine(directory, table.Id + ".csv"), Render(table))).ToList();
        cancellationToken.ThrowIfCancellationRequested();
        await ResultFile.WriteAllAsync(files);
        return [.. files.Select(file => file.Key)];
    }

    /// <summary>What an interval column is written as: its bounds, in the unit of the table's figures, and its confidence level (0.95 or 0.995).</summary>
    public static IReadOnlyList<string> IntervalHeaders { get; } = ["interval low", "interval high", "interval level"];

    public static string Render(ReportTable table)
    {
        ArgumentNullException.ThrowIfNull(table);
        var csv = new StringBuilder();
        AppendRecord(csv, table.Headers.SelectMany(h => h == table.IntervalColumn ? IntervalHeaders : [h]));
        foreach (var row in table.Rows)
        {
            AppendRecord(csv, row.SelectMany((c, i) => table.Headers[i] == table.IntervalColumn ? IntervalFields(c.Interval) : [Field(c)]));
        }

        return csv.ToString();
    }

    /// <summary>One field, quoted when RFC 4180 §2.6 requires it (a comma, a double quote, CR or LF), its quotes doubled (§2.7).</summary>
    public static string Field(string? value)
    {
        if (string.IsNullOrEmpty(value))
        {
            return "";
        }

        return value.AsSpan().IndexOfAny(",\"\r\n") < 0 ? value : "\"" + value.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";
    }

    private static string Field(ReportCell cell) => cell.Value is { } v ? ReportNumber.Raw(v) : cell.Text;

    private static string[] IntervalFields(Verdicts.RatioInterval? interval) =>
        interval is null ? ["", "", ""] : [ReportNumber.Raw(interval.Low), ReportNumber.Raw(interval.High), ReportNumber.Raw(interval.Level)];

    private static void AppendRecord(StringBuilder csv, IEnumerable<string> fields)
    {
        csv.AppendJoin(',', fields.Select(Field));
        csv.Append("\r\n");
    }
}
