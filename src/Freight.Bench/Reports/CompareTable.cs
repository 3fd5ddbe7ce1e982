using System.Text;

namespace Freight.Bench.Reports;

/// <summary>One comparison table: a title, notes under it, a header per column (metric first) and one row per metric.</summary>
internal sealed class CompareTable(string title, IReadOnlyList<string> headers)
{
    public string Title { get; } = title;

    public IReadOnlyList<string> Headers { get; } = headers;

    public List<string[]> Rows { get; } = [];

    /// <summary>Lines between the title and the table: what differs between the columns, how much each one measured.</summary>
    public List<string> Notes { get; } = [];

    /// <summary>True when a column is a <c>freight load</c> result (its changes are judged by its runs' noise, not the bench's band).</summary>
    public bool Load { get; set; }

    /// <summary>True when a column is a <c>freight load</c> result of fewer than <see cref="RunsInterval.MinimumRuns"/> runs (<see cref="OneRunNoise"/> judges its changes).</summary>
    public bool OneRun { get; set; }

    /// <summary>True when every <c>freight load</c> column was measured on a quiet machine (<see cref="OneRunNoise.IsQuiet"/>): the quiet floors apply.</summary>
    public bool QuietMachine { get; set; }

    /// <summary>True when a cell was marked from an interval over runs (<see cref="RunsInterval"/>).</summary>
    public bool OverRuns { get; set; }

    public void AppendText(StringBuilder text)
    {
        var widths = new int[Headers.Count];
        foreach (var row in Rows.Prepend([.. Headers]))
        {
            for (var i = 0; i < row.Length; i++)
            {
                widths[i] = Math.Max(widths[i], row[i].Length);
            }
        }

        text.AppendLine(Title);
        foreach (var note in Notes)
        {
            text.AppendLine(note);
        }

        AppendLine(text, [.. Headers], widths);
        text.AppendLine(new string('-', widths.Sum() + (2 * (widths.Length - 1))));
        foreach (var row in Rows)
        {
            AppendLine(text, row, widths);
        }
    }

    public void AppendMarkdown(StringBuilder text)
    {
        text.AppendLine($"### {Title}");
        text.AppendLine();
        foreach (var note in Notes)
        {
            text.AppendLine($"- {note}");
        }

        if (Notes.Count > 0)
        {
            text.AppendLine();
        }

        text.AppendLine($"| {string.Join(" | ", Headers.Select(Escape))} |");

        // The metric names read left-aligned; the figures right-aligned so their digits line up.
        text.AppendLine($"| :--- |{string.Concat(Enumerable.Repeat(" ---: |", Headers.Count - 1))}");
        foreach (var row in Rows)
        {
            text.AppendLine($"| {string.Join(" | ", row.Select(Escape))} |");
        }
    }

    private static void AppendLine(StringBuilder text, string[] row, int[] widths)
    {
        var line = new StringBuilder(row[0].PadRight(widths[0]));
        for (var i = 1; i < row.Length; i++)
        {
            line.Append("  ").Append(row[i].PadLeft(widths[i]));
        }

        text.AppendLine(line.ToString().TrimEnd());
    }

    private static string Escape(string cell) => cell.Replace("|", "\\|", StringComparison.Ordinal);
}
