using System.Globalization;
using System.Text;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// The report's tables as GitHub Markdown, ready for a pull request or a README: a heading per section, a table per
/// chart (long ones folded in <c>&lt;details&gt;</c>), text columns left-aligned and figures right-aligned. Lines end
/// with \n whatever the platform, so the output is the same everywhere.
/// </summary>
public static class MarkdownReportWriter
{
    /// <summary>Tables longer than this (per-second series) are folded so the page stays readable.</summary>
    public const int FoldRows = 30;

    public static string Render(ReportModel model)
    {
        ArgumentNullException.ThrowIfNull(model);
        var md = new StringBuilder();
        md.Append("# ").Append(Escape(model.Title)).Append('\n').Append('\n');
        md.Append("Written by `freight report` from ").Append(string.Join(", ", model.Files.Select(f => Escape(f))));
        md.Append(". Figures are medians over the runs.\n");
        foreach (var section in model.Sections)
        {
            md.Append('\n').Append("## ").Append(Escape(section.Title)).Append('\n');
            if (section.Note.Length > 0)
            {
                md.Append('\n').Append(Escape(section.Note)).Append('\n');
            }

            foreach (var figure in section.Figures)
            {
                AppendTable(md, figure.Table, heading: section.Figures.Count > 1 || figure.Table.Title != section.Title);
            }

            if (section.Notes.Count > 0)
            {
                md.Append('\n');
                foreach (var note in section.Notes)
                {
                    md.Append("- ").Append(Escape(note)).Append('\n');
                }
            }
        }

        return md.ToString();
    }

    /// <summary>
    /// Escapes what GitHub Markdown would read as markup in running text or a table cell: backslash, the pipe that
    /// ends a cell, emphasis and code marks, link brackets and the angle brackets of inline HTML; a line break becomes a space.
    /// </summary>
    public static string Escape(string? text)
    {
        if (string.IsNullOrEmpty(text))
        {
            return "";
        }

        var escaped = new StringBuilder(text.Length + 8);
        foreach (var c in text)
        {
            _ = c switch
            {
                '\\' or '|' or '*' or '_' or '`' or '[' or ']' => escaped.Append('\\').Append(c),
                '<' => escaped.Append("&lt;"),
                '>' => escaped.Append("&gt;"),
                '\r' => escaped,
                '\n' => escaped.Append(' '),
                _ => escaped.Append(c),
            };
        }

        return escaped.ToString();
    }

    private static void AppendTable(StringBuilder md, ReportTable table, bool heading)
    {
        var fold = table.Rows.Count > FoldRows;
        md.Append('\n');
        if (fold)
        {
            md.Append(CultureInfo.InvariantCulture, $"<details><summary>{HtmlText.Encode(table.Title)} ({table.Rows.Count} rows)</summary>\n\n");
        }
        else if (heading)
        {
            md.Append("### ").Append(Escape(table.Title)).Append("\n\n");
        }

        md.Append("| ").Append(string.Join(" | ", table.Headers.Select(h => Escape(h)))).Append(" |\n");
        md.Append('|');
        for (var i = 0; i < table.Headers.Count; i++)
        {
            md.Append(table.IsNumeric(i) ? " ---: |" : " :--- |");
        }

        md.Append('\n');
        foreach (var row in table.Rows)
        {
            md.Append("| ").Append(string.Join(" | ", row.Select(c => Escape(c.Text)))).Append(" |\n");
        }

        if (fold)
        {
            md.Append("\n</details>\n");
        }
    }
}
