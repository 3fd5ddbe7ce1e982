using System.Globalization;
using System.Text;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// Draws a chart as inline SVG, no script: an <c>&lt;svg role="img"&gt;</c> labelled by its <c>&lt;title&gt;</c>, every
/// data point an element of class <c>point</c> whose data-* attributes carry its values (and a <c>&lt;title&gt;</c>
/// tooltip), so a reader, a screen reader and a test all see the same numbers as the table beside it.
/// </summary>
internal static class SvgChartWriter
{
    // 11 px sans-serif averages about 6.1 px a character: enough to size label columns without measuring text.
    private const double CharWidth = 6.1;
    private const int FontSize = 11;

    private static readonly string[] s_palette = ["#3366aa", "#dd6622", "#229944", "#aa3399", "#997700", "#118899", "#cc3344", "#666666"];

    public static void Append(StringBuilder svg, ReportChart chart)
    {
        ArgumentNullException.ThrowIfNull(svg);
        switch (chart)
        {
            case BarChart bars:
                AppendBars(svg, bars);
                break;
            case LineChart lines:
                AppendLines(svg, lines);
                break;
            default:
                throw new ArgumentException($"No drawing for {chart.GetType().Name}.", nameof(chart));
        }
    }

    public static string Color(BarKind kind) => kind switch
    {
        BarKind.Ours => "#3366aa",
        BarKind.Peer => "#dd8800",
        BarKind.Published => "#9a9a9a",
        _ => "#66aa66",
    };

    public static string Color(int series) => s_palette[series % s_palette.Length];

    private static void AppendBars(StringBuilder svg, BarChart chart)
    {
        const double barHeight = 12, barGap = 2, categoryGap = 10, plotWidth = 440, valueSpace = 90, plotTop = 30;
        var categories = chart.Bars.Select(b => b.Category).Distinct(StringComparer.Ordinal).ToArray();
        var longest = categories.Length == 0 ? 10 : categories.Max(c => c.Length);
        var labelWidth = Math.Clamp((longest * CharWidth) + 12, 100, 380);
        var labelChars = (int)((labelWidth - 12) / CharWidth);
        var scale = AxisScale.For(chart.Bars.Count == 0 ? 0 : chart.Bars.Max(b => Math.Max(b.Value, b.Max ?? 0)));
        var plotHeight = categories.Sum(c => (chart.Bars.Count(b => b.Category == c) * (barHeight + barGap)) - barGap + categoryGap);
        plotHeight = Math.Max(plotHeight, 24);
        var width = labelWidth + plotWidth + valueSpace;
        var height = plotTop + plotHeight + 42;
        double X(double value) => labelWidth + (value / scale.Max * plotWidth);

        Open(svg, chart, "bar", width, height);
        var kinds = chart.Bars.Select(b => b.Kind).Distinct().Order().ToArray();
        AppendLegend(svg, kinds.Select(k => (Name(k), Color(k))).ToArray(), labelWidth, width);
        AppendValueAxis(svg, scale, labelWidth, plotTop, plotHeight, plotWidth, chart.Unit);

        var y = plotTop + (categoryGap / 2);
        foreach (var category in categories)
        {
            var bars = chart.Bars.Where(b => b.Category == category).ToArray();
            var categoryHeight = (bars.Length * (barHeight + barGap)) - barGap;
            var shown = category.Length > labelChars ? category[..(labelChars - 1)] + "…" : category;
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"category\" x=\"{N(labelWidth - 6)}\" y=\"{N(y + (categoryHeight / 2) + 4)}\" text-anchor=\"end\"><title>{HtmlText.Encode(category)}</title>{HtmlText.Encode(shown)}</text>\n");
            foreach (var bar in bars)
            {
                var end = X(bar.Value);
                var tooltip = $"{bar.Category}: {ReportNumber.Format(bar.Value)} {chart.Unit} ({Name(bar.Kind)}{(bar.Note is null ? "" : ", " + bar.Note)})";
                svg.Append(CultureInfo.InvariantCulture, $"<rect class=\"point bar-{Name(bar.Kind)}\" x=\"{N(labelWidth)}\" y=\"{N(y)}\" width=\"{N(Math.Max(1, end - labelWidth))}\" height=\"{N(barHeight)}\" fill=\"{Color(bar.Kind)}\"");
                svg.Append(CultureInfo.InvariantCulture, $" data-series=\"{Name(bar.Kind)}\" data-category=\"{HtmlText.Encode(bar.Category)}\" data-value=\"{ReportNumber.Raw(bar.Value)}\" data-unit=\"{HtmlText.Encode(chart.Unit)}\"");
                if (bar.Min is { } min && bar.Max is { } max)
                {
                    svg.Append(CultureInfo.InvariantCulture, $" data-min=\"{ReportNumber.Raw(min)}\" data-max=\"{ReportNumber.Raw(max)}\"");
                }

                svg.Append(CultureInfo.InvariantCulture, $"><title>{HtmlText.Encode(tooltip)}</title></rect>\n");
                var textX = end;
                if (bar.Min is { } low && bar.Max is { } high && high > low)
                {
                    // The min–max over the runs, as a whisker across the bar's end.
                    var middle = y + (barHeight / 2);
                    svg.Append(CultureInfo.InvariantCulture, $"<path class=\"range\" d=\"M{N(X(low))} {N(middle)}H{N(X(high))}M{N(X(low))} {N(middle - 3)}v6M{N(X(high))} {N(middle - 3)}v6\" stroke=\"#222\" stroke-width=\"1\" fill=\"none\"/>\n");
                    textX = Math.Max(textX, X(high));
                }

                svg.Append(CultureInfo.InvariantCulture, $"<text class=\"value\" x=\"{N(textX + 4)}\" y=\"{N(y + barHeight - 2)}\">{HtmlText.Encode(ReportNumber.Format(bar.Value))}</text>\n");
                y += barHeight + barGap;
            }

            y += categoryGap - barGap;
        }

        if (chart.Bars.Count == 0)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{N(labelWidth + (plotWidth / 2))}\" y=\"{N(plotTop + 16)}\" text-anchor=\"middle\">no figures: no row verified</text>\n");
        }

        svg.Append("</svg>\n");
    }

    private static void AppendLines(StringBuilder svg, LineChart chart)
    {
        const double width = 660, plotLeft = 70, plotRight = 16, plotHeight = 220;
        const double plotWidth = width - plotLeft - plotRight;
        var legend = chart.Series.Select((s, i) => (s.Name, Color(i))).ToArray();
        var legendRows = LegendRows(legend.Select(l => l.Name).ToArray(), plotLeft, width);
        var plotTop = 14 + (legendRows * 16);
        var height = plotTop + plotHeight + 46;
        var points = chart.Series.SelectMany(s => s.Points).ToArray();
        var yScale = AxisScale.For(points.Length == 0 ? 0 : points.Max(p => p.Y));
        var labels = chart.XLabels;
        var xScale = labels is null ? AxisScale.For(points.Length == 0 ? 0 : points.Max(p => p.X)) : null;
        double X(double x) => labels is not null
            ? plotLeft + (labels.Count > 1 ? x / (labels.Count - 1) * plotWidth : plotWidth / 2)
            : plotLeft + (x / xScale!.Max * plotWidth);
        double Y(double y) => plotTop + plotHeight - (y / yScale.Max * plotHeight);

        Open(svg, chart, "line", width, height);
        AppendLegend(svg, legend, plotLeft, width);

        // Horizontal grid and the y axis's figures; the unit stands above them.
        foreach (var tick in yScale.Ticks())
        {
            svg.Append(CultureInfo.InvariantCulture, $"<line class=\"grid\" x1=\"{N(plotLeft)}\" x2=\"{N(plotLeft + plotWidth)}\" y1=\"{N(Y(tick))}\" y2=\"{N(Y(tick))}\" stroke=\"#ddd\"/>");
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"tick\" x=\"{N(plotLeft - 6)}\" y=\"{N(Y(tick) + 4)}\" text-anchor=\"end\">{yScale.Format(tick)}</text>\n");
        }

        svg.Append(CultureInfo.InvariantCulture, $"<text class=\"axis-title\" transform=\"translate(14 {N(plotTop + (plotHeight / 2))}) rotate(-90)\" text-anchor=\"middle\">{HtmlText.Encode(chart.Unit)}</text>\n");
        var xTicks = labels is not null
            ? labels.Select((label, i) => (X: X(i), Text: label))
            : xScale!.Ticks().Select(t => (X: X(t), Text: xScale.Format(t)));
        foreach (var (x, text) in xTicks)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<line class=\"grid\" x1=\"{N(x)}\" x2=\"{N(x)}\" y1=\"{N(plotTop)}\" y2=\"{N(plotTop + plotHeight)}\" stroke=\"#eee\"/>");
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"tick\" x=\"{N(x)}\" y=\"{N(plotTop + plotHeight + 16)}\" text-anchor=\"middle\">{HtmlText.Encode(text)}</text>\n");
        }

        svg.Append(CultureInfo.InvariantCulture, $"<text class=\"axis-title\" x=\"{N(plotLeft + (plotWidth / 2))}\" y=\"{N(plotTop + plotHeight + 36)}\" text-anchor=\"middle\">{HtmlText.Encode(chart.XTitle)}</text>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<path class=\"axis\" d=\"M{N(plotLeft)} {N(plotTop)}V{N(plotTop + plotHeight)}H{N(plotLeft + plotWidth)}\" stroke=\"#444\" fill=\"none\"/>\n");

        for (var i = 0; i < chart.Series.Count; i++)
        {
            var series = chart.Series[i];
            var color = Color(i);
            var name = HtmlText.Encode(series.Name);
            svg.Append(CultureInfo.InvariantCulture, $"<g class=\"series\" data-series=\"{name}\">\n");
            if (series.Points.Count > 1)
            {
                svg.Append(CultureInfo.InvariantCulture, $"<polyline points=\"{string.Join(' ', series.Points.Select(p => $"{N(X(p.X))},{N(Y(p.Y))}"))}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\"/>\n");
            }

            foreach (var p in series.Points)
            {
                var x = labels is not null ? labels[(int)p.X] : ReportNumber.Raw(p.X);
                var tooltip = $"{series.Name}, {chart.XTitle} {x}: {ReportNumber.Format(p.Y)} {chart.Unit}";
                svg.Append(CultureInfo.InvariantCulture, $"<circle class=\"point\" cx=\"{N(X(p.X))}\" cy=\"{N(Y(p.Y))}\" r=\"2.5\" fill=\"{color}\" data-series=\"{name}\" data-x=\"{HtmlText.Encode(x)}\" data-y=\"{ReportNumber.Raw(p.Y)}\" data-unit=\"{HtmlText.Encode(chart.Unit)}\"><title>{HtmlText.Encode(tooltip)}</title></circle>\n");
            }

            svg.Append("</g>\n");
        }

        svg.Append("</svg>\n");
    }

    private static void Open(StringBuilder svg, ReportChart chart, string kind, double width, double height)
    {
        var id = HtmlText.Encode(chart.Id);
        svg.Append(CultureInfo.InvariantCulture, $"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {N(width)} {N(height)}\" width=\"{N(width)}\" height=\"{N(height)}\"");
        svg.Append(CultureInfo.InvariantCulture, $" role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" data-chart=\"{id}\" data-kind=\"{kind}\" data-points=\"{chart.PointCount}\" font-family=\"sans-serif\" font-size=\"{FontSize}\">\n");
        svg.Append(CultureInfo.InvariantCulture, $"<title id=\"{id}-title\">{HtmlText.Encode(chart.Title)}</title>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<desc id=\"{id}-desc\">{HtmlText.Encode(Describe(chart))}</desc>\n");
    }

    private static string Describe(ReportChart chart) => chart switch
    {
        BarChart bars => $"{CountText.Format(bars.Bars.Count, "bar")} in {chart.Unit}; the numbers are in the table beside the chart.",
        LineChart lines => $"{CountText.Format(lines.Series.Count, "line")}, {CountText.Format(lines.PointCount, "point")} in {chart.Unit} by {lines.XTitle}; the numbers are in the table beside the chart.",
        _ => "",
    };

    private static void AppendValueAxis(StringBuilder svg, AxisScale scale, double left, double top, double plotHeight, double plotWidth, string unit)
    {
        foreach (var tick in scale.Ticks())
        {
            var x = left + (tick / scale.Max * plotWidth);
            svg.Append(CultureInfo.InvariantCulture, $"<line class=\"grid\" x1=\"{N(x)}\" x2=\"{N(x)}\" y1=\"{N(top)}\" y2=\"{N(top + plotHeight)}\" stroke=\"#ddd\"/>");
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"tick\" x=\"{N(x)}\" y=\"{N(top + plotHeight + 14)}\" text-anchor=\"middle\">{scale.Format(tick)}</text>\n");
        }

        svg.Append(CultureInfo.InvariantCulture, $"<text class=\"axis-title\" x=\"{N(left + (plotWidth / 2))}\" y=\"{N(top + plotHeight + 32)}\" text-anchor=\"middle\">{HtmlText.Encode(unit)}</text>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<path class=\"axis\" d=\"M{N(left)} {N(top)}V{N(top + plotHeight)}\" stroke=\"#444\" fill=\"none\"/>\n");
    }

    private static void AppendLegend(StringBuilder svg, (string Name, string Color)[] items, double left, double width)
    {
        var x = left;
        var y = 8.0;
        foreach (var (name, color) in items)
        {
            var itemWidth = ItemWidth(name);
            if (x > left && x + itemWidth > width)
            {
                x = left;
                y += 16;
            }

            svg.Append(CultureInfo.InvariantCulture, $"<g class=\"legend\"><rect x=\"{N(x)}\" y=\"{N(y)}\" width=\"10\" height=\"10\" fill=\"{color}\"/><text x=\"{N(x + 14)}\" y=\"{N(y + 9)}\">{HtmlText.Encode(name)}</text></g>\n");
            x += itemWidth;
        }
    }

    private static int LegendRows(string[] names, double left, double width)
    {
        var rows = 1;
        var x = left;
        foreach (var name in names)
        {
            var itemWidth = ItemWidth(name);
            if (x > left && x + itemWidth > width)
            {
                x = left;
                rows++;
            }

            x += itemWidth;
        }

        return rows;
    }

    private static double ItemWidth(string name) => 14 + (name.Length * CharWidth) + 16;

    private static string Name(BarKind kind) => kind switch
    {
        BarKind.Ours => "ours",
        BarKind.Peer => "peer",
        BarKind.Published => "published",
        _ => "reference",
    };

    private static string N(double value) => value.ToString("0.#", CultureInfo.InvariantCulture);
}
