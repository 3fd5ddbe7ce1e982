using System.Text;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// The report's tables as CSV, one file per table named after its id (RFC 4180: a header record, CRLF line ends,
/// fields with a comma, quote or line break quoted and their quotes doubled). Figures are written in full, without
/// thousands separators, in the invariant culture; a missing figure is an empty field.
/// </summary>
public static class CsvReportWriter
{
    /// <summary>Writes <c>DIR/ID.csv</c> for every table of the report; returns the paths, in report order.</summary>
    public static async Task<IReadOnlyList<string>> WriteAsync(ReportModel model, string directory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(model);
        ArgumentException.ThrowIfNullOrEmpty(directory);
        Directory.CreateDirectory(directory);
        var written = new List<string>();
        foreach (var table in model.Tables)
        {
            var path = Path.Combine(directory, table.Id + ".csv");
            await File.WriteAllTextAsync(path, Render(table), cancellationToken);
            written.Add(path);
        }

        return written;
    }

    public static string Render(ReportTable table)
    {
        ArgumentNullException.ThrowIfNull(table);
        var csv = new StringBuilder();
        AppendRecord(csv, table.Headers);
        foreach (var row in table.Rows)
        {
            AppendRecord(csv, row.Select(c => c.Value is { } v ? ReportNumber.Raw(v) : c.Text));
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

    private static void AppendRecord(StringBuilder csv, IEnumerable<string> fields)
    {
        csv.AppendJoin(',', fields.Select(Field));
        csv.Append("\r\n");
    }
}
