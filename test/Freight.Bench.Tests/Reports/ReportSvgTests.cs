using System.Text.Json;
using System.Xml.Linq;
using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Reports;

/// <summary><c>freight report --svg DIR</c>: every chart of the page as a standalone SVG file a README can show.</summary>
public sealed class ReportSvgTests
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    [Fact]
    public async Task RunAsync_Svg_WritesOneStandaloneSvgPerChartWithItsPoints()
    {
        var directory = Path.Combine(Path.GetTempPath(), $"freight-report-svg-{Guid.NewGuid():N}");
        try
        {
            using var output = new StringWriter();
            using var error = new StringWriter();
            var exit = await ReportCommand.RunAsync([ReportFixture.ResultPath, "--svg", directory], output, error);

            Assert.Equal(0, exit);
            Assert.Equal("", error.ToString());
            var model = ReportBuilder.Build([await ReportFixture.LoadAsync()], CompareReport.DefaultNoisePercent);
            var charts = model.Charts.ToList();
            Assert.NotEmpty(charts);
            Assert.Equal($"svg: {directory} ({charts.Count} files)", output.ToString().TrimEnd());
            // Named NN-ID.svg: sorted by name they are in the report's order.
            Assert.Equal(charts.Select((c, i) => $"{i + 1:00}-{c.Id}.svg"), Directory.GetFiles(directory).Select(Path.GetFileName).Order(StringComparer.Ordinal));
            foreach (var (chart, index) in charts.Select((c, i) => (c, i)))
            {
                var document = XDocument.Load(Path.Combine(directory, $"{index + 1:00}-{chart.Id}.svg"));
                var root = document.Root!;
                Assert.Equal(Svg + "svg", root.Name);
                Assert.Equal(chart.Title, root.Element(Svg + "title")!.Value);
                // Opaque, so a dark page does not swallow the text; and every data point drawn.
                Assert.Equal("#fff", root.Elements(Svg + "rect").First().Attribute("fill")!.Value);
                Assert.Equal(chart.PointCount, root.Descendants().Count(e => (e.Attribute("class")?.Value ?? "").Split(' ').Contains("point")));
            }
        }
        finally
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }

    [Fact]
    public async Task RunAsync_SvgOfOneRow_SaysOneFileAndOneBar()
    {
        var directory = Path.Combine(Path.GetTempPath(), $"freight-report-svg-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        try
        {
            // report.json cut down to the TCP ceiling's row: one chart, of one bar.
            var report = (await ReportFixture.LoadAsync()).Report;
            report.Results.RemoveAll(r => r.Scenario != "tcp/loopback");
            report.Ratios.Clear();
            report.SuiteChecks.Clear();
            var result = Path.Combine(directory, "one-row.json");
            await File.WriteAllTextAsync(result, JsonSerializer.Serialize(report, BenchReport.JsonOptions));
            var charts = Path.Combine(directory, "charts");
            using var output = new StringWriter();
            using var error = new StringWriter();

            var exit = await ReportCommand.RunAsync([result, "--svg", charts], output, error);

            Assert.Equal(0, exit);
            Assert.Equal("", error.ToString());
            Assert.Equal($"svg: {charts} (1 file)", output.ToString().TrimEnd());
            var desc = XDocument.Load(Assert.Single(Directory.GetFiles(charts))).Root!.Element(Svg + "desc")!.Value;
            Assert.StartsWith("1 bar in ", desc, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public void Parse_SvgAlone_IsAnOutput()
    {
        var options = ReportCommand.Parse(["r.json", "--svg", "charts"], out var error);

        Assert.Null(error);
        Assert.Equal("charts", options!.SvgDirectory);
    }
}
