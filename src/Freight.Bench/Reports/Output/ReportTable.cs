namespace Freight.Bench.Reports.Output;

/// <summary>
/// One table of the report: the numbers of a chart, or a table on its own (runs, ratios, compare). Its id names the
/// HTML element, the chart beside it and the CSV file.
/// </summary>
public sealed class ReportTable
{
    private readonly List<IReadOnlyList<ReportCell>> _rows = [];

    public ReportTable(string id, string title, IReadOnlyList<string> headers)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        ArgumentNullException.ThrowIfNull(title);
        ArgumentNullException.ThrowIfNull(headers);
        Id = id;
        Title = title;
        Headers = headers;
    }

    public string Id { get; }

    public string Title { get; }

    public IReadOnlyList<string> Headers { get; }

    /// <summary>
    /// The header of the column whose cells are intervals (<see cref="ReportCell.Interval"/>), if the table has one:
    /// HTML and Markdown show "low–high", CSV writes three numeric fields in its place (<see cref="CsvReportWriter"/>).
    /// </summary>
    public string? IntervalColumn
    {
        get;
        init => field = value is null || Headers.Contains(value) ? value : throw new ArgumentException($"'{Title}' has no column '{value}'.", nameof(value));
    }

    public IReadOnlyList<IReadOnlyList<ReportCell>> Rows => _rows;

    public void Add(params ReportCell[] row)
    {
        ArgumentNullException.ThrowIfNull(row);
        if (row.Length != Headers.Count)
        {
            throw new ArgumentException($"A row of '{Title}' needs {Headers.Count} cells, not {row.Length}.", nameof(row));
        }

        _rows.Add(row);
    }

    /// <summary>True when the column holds figures (right-aligned in HTML and Markdown).</summary>
    public bool IsNumeric(int column) => _rows.Any(r => r[column].IsNumber) && _rows.All(r => r[column].IsNumber || r[column].Text.Length == 0);
}
