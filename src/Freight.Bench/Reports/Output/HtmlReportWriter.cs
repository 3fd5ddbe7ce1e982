using System.Globalization;
using System.Text;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// The report as one self-contained HTML page: inline CSS and SVG, no script, nothing fetched (its
/// Content-Security-Policy forbids any load), every chart with its table beside it. All text is HTML-encoded.
/// </summary>
public static class HtmlReportWriter
{
    private const string Style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
        h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { font-size: 1em; }
        nav ol { columns: 2; }
        .note { color: #444; max-width: 60em; }
        figure { margin: 1em 0 2em; }
        .figure-body { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
        svg.chart { max-width: 100%; height: auto; }
        .data { max-height: 36em; overflow: auto; }
        table { border-collapse: collapse; font-size: 12px; }
        th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
        th { background: #f3f3f3; position: sticky; top: 0; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        svg text { fill: #222; }
        """;

    public static string Render(ReportModel model)
    {
        ArgumentNullException.ThrowIfNull(model);
        var html = new StringBuilder(64 * 1024);
        html.Append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        html.Append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
        html.Append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        html.Append(CultureInfo.InvariantCulture, $"<title>{HtmlText.Encode(model.Title)}</title>\n<style>\n{Style}</style>\n</head>\n<body>\n");
        html.Append(CultureInfo.InvariantCulture, $"<header>\n<h1>{HtmlText.Encode(model.Title)}</h1>\n");
        html.Append("<p class=\"note\">Written by <code>freight report</code> from ");
        html.Append(string.Join(", ", model.Files.Select(f => $"<code>{HtmlText.Encode(f)}</code>")));
        html.Append(". Figures are medians over the runs; bars carry the min–max as whiskers; every chart's numbers are in the table beside it.</p>\n</header>\n");

        html.Append("<nav>\n<ol>\n");
        foreach (var section in model.Sections)
        {
            html.Append(CultureInfo.InvariantCulture, $"<li><a href=\"#{HtmlText.Encode(section.Id)}\">{HtmlText.Encode(section.Title)}</a></li>\n");
        }

        html.Append("</ol>\n</nav>\n");
        foreach (var section in model.Sections)
        {
            AppendSection(html, section);
        }

        html.Append("</body>\n</html>\n");
        return html.ToString();
    }

    private static void AppendSection(StringBuilder html, ReportSection section)
    {
        html.Append(CultureInfo.InvariantCulture, $"<section id=\"{HtmlText.Encode(section.Id)}\">\n<h2>{HtmlText.Encode(section.Title)}</h2>\n");
        if (section.Note.Length > 0)
        {
            html.Append(CultureInfo.InvariantCulture, $"<p class=\"note\">{HtmlText.Encode(section.Note)}</p>\n");
        }

        foreach (var figure in section.Figures)
        {
            var id = HtmlText.Encode(figure.Table.Id);
            html.Append(CultureInfo.InvariantCulture, $"<figure id=\"figure-{id}\">\n<figcaption><h3>{HtmlText.Encode(figure.Table.Title)}</h3></figcaption>\n<div class=\"figure-body\">\n");
            if (figure.Chart is { } chart)
            {
                html.Append("<div class=\"plot\">\n");
                SvgChartWriter.Append(html, chart);
                html.Append("</div>\n");
            }

            html.Append("<div class=\"data\">\n");
            AppendTable(html, figure.Table);
            html.Append("</div>\n</div>\n</figure>\n");
        }

        if (section.Notes.Count > 0)
        {
            html.Append("<ul class=\"notes\">\n");
            foreach (var note in section.Notes)
            {
                html.Append(CultureInfo.InvariantCulture, $"<li>{HtmlText.Encode(note)}</li>\n");
            }

            html.Append("</ul>\n");
        }

        html.Append("</section>\n");
    }

    private static void AppendTable(StringBuilder html, ReportTable table)
    {
        html.Append(CultureInfo.InvariantCulture, $"<table id=\"table-{HtmlText.Encode(table.Id)}\" data-table=\"{HtmlText.Encode(table.Id)}\">\n<thead><tr>");
        foreach (var header in table.Headers)
        {
            html.Append(CultureInfo.InvariantCulture, $"<th scope=\"col\">{HtmlText.Encode(header)}</th>");
        }

        html.Append("</tr></thead>\n<tbody>\n");
        var numeric = Enumerable.Range(0, table.Headers.Count).Select(table.IsNumeric).ToArray();
        foreach (var row in table.Rows)
        {
            html.Append("<tr>");
            for (var i = 0; i < row.Count; i++)
            {
                var cell = row[i];
                if (i == 0)
                {
                    html.Append(CultureInfo.InvariantCulture, $"<th scope=\"row\">{HtmlText.Encode(cell.Text)}</th>");
                }
                else if (numeric[i])
                {
                    var value = cell.Value is { } v ? $" data-value=\"{ReportNumber.Raw(v)}\"" : "";
                    html.Append(CultureInfo.InvariantCulture, $"<td class=\"num\"{value}>{HtmlText.Encode(cell.Text)}</td>");
                }
                else
                {
                    html.Append(CultureInfo.InvariantCulture, $"<td>{HtmlText.Encode(cell.Text)}</td>");
                }
            }

            html.Append("</tr>\n");
        }

        html.Append("</tbody>\n</table>\n");
    }
}
