using System.Text;
using Freight.Bench.Cli;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// The report's charts as standalone SVG files, one per chart named <c>NN-ID.svg</c> (NN its place in the report): the same drawing as the HTML
/// page's (attributes only, no stylesheet needed), so a README can show one as an image.
/// </summary>
public static class SvgChartFiles
{
    /// <summary>Writes <c>DIR/NN-ID.svg</c> for every chart of the report; returns the paths, in report order.</summary>
    public static async Task<IReadOnlyList<string>> WriteAsync(ReportModel model, string directory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(model);
        ArgumentException.ThrowIfNullOrEmpty(directory);
        Directory.CreateDirectory(directory);
        var files = new List<KeyValuePair<string, string>>();
        foreach (var chart in model.Charts)
        {
            var svg = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
            SvgChartWriter.Append(svg, chart);
            // An opaque background: an image on a dark page (GitHub's dark theme) would hide the dark text.
            var drawing = svg.ToString().IndexOf("</desc>\n", StringComparison.Ordinal);
            svg.Insert(drawing + "</desc>\n".Length, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
            files.Add(KeyValuePair.Create(Path.Combine(directory, $"{files.Count + 1:00}-{chart.Id}.svg"), svg.ToString()));
        }

        cancellationToken.ThrowIfCancellationRequested();
        await ResultFile.WriteAllAsync(files);
        return [.. files.Select(file => file.Key)];
    }
}
