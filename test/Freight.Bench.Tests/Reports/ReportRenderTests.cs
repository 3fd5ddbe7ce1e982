using Freight.Bench.Reports.Output;
using Xunit.Abstractions;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// The fixture's HTML report in headless Chromium (<see cref="ReportRenderer"/>): no console or page error, nothing
/// fetched, every scenario on the page, every chart drawn with its data points and its table. The screenshot stays in
/// the build output (<c>bin/…/artifacts/report-render/</c>) as the run's artifact; its path is in the test output.
/// </summary>
public sealed class ReportRenderTests(ITestOutputHelper output)
{
    [Fact]
    public async Task HtmlReport_Fixture_RendersInChromiumWithEveryScenarioAndDataPoint()
    {
        await ReportRenderer.EnsureInstalledAsync();
        var artifacts = ReportFixture.ArtifactsDirectory("report-render");
        var html = await HtmlReport.WriteAsync(ReportFixture.ResultPath, Path.Combine(artifacts, "report.html"));
        var screenshot = Path.Combine(artifacts, "report.png");
        File.Delete(screenshot);

        var page = await ReportRenderer.RenderAsync(html, screenshot, ReportFixture.Scenarios);
        output.WriteLine($"screenshot: {page.Screenshot}");
        output.WriteLine($"html: {html}");

        Assert.Empty(page.ConsoleErrors);
        Assert.Empty(page.PageErrors);
        Assert.Empty(page.Requests);
        Assert.Empty(page.MissingScenarios);
        Assert.Equal("Freight bench report — report.json", page.Title);
        Assert.Equal(ReportBuilderTests.FixtureCharts, page.Charts.ToDictionary(c => c.Id, c => c.Points));
        foreach (var chart in page.Charts)
        {
            Assert.True(chart.VisiblePoints == chart.Points, $"{chart.Id}: {chart.Points - chart.VisiblePoints} of {chart.Points} points not drawn");
            Assert.Equal(chart.Points, chart.DeclaredPoints);
            Assert.False(string.IsNullOrWhiteSpace(chart.Title), $"{chart.Id} has no <title>");
            Assert.True(chart.TableRows > 0, $"{chart.Id} has no table beside it");
        }

        // Bars say what they stand for; the ramp's curves are one line per scenario.
        Assert.Equal(["reference", "ours", "published"], page.Charts.Single(c => c.Id == "transfer-throughput").Series);
        Assert.Equal(["ours", "peer"], page.Charts.Single(c => c.Id == "files-throughput").Series);
        Assert.Equal(["threads/sleep", "threads/delay"], page.Charts.Single(c => c.Id == "threads-latency-1-6-conns-over-6-s-1000-ms").Series);

        // A whole page, 1400 px wide: a PNG of real size, not an empty frame.
        Assert.Equal(screenshot, page.Screenshot);
        var png = await File.ReadAllBytesAsync(screenshot);
        Assert.True(png.AsSpan().StartsWith((byte[])[0x89, (byte)'P', (byte)'N', (byte)'G']), "the screenshot is not a PNG");
        Assert.True(png.Length > 50_000, $"the screenshot is only {png.Length} bytes");
    }

    [Fact]
    public async Task Renderer_PageWithScriptErrorAndExternalLoad_ReportsThem()
    {
        // The checks above pass on silence: show that the script hears a broken page.
        await ReportRenderer.EnsureInstalledAsync();
        var artifacts = ReportFixture.ArtifactsDirectory("report-render");
        var html = Path.Combine(artifacts, "broken.html");
        await File.WriteAllTextAsync(html, """
            <!DOCTYPE html><html><head><title>broken</title></head><body>
            <p>static/freight</p>
            <svg data-chart="c" data-kind="bar" data-points="2"><title>c</title><rect class="point" width="10" height="10"/><rect class="point" width="0" height="10"/></svg>
            <img src="http://127.0.0.1:9/missing.png">
            <script>console.error('bad data'); throw new Error('boom');</script>
            </body></html>
            """);

        var page = await ReportRenderer.RenderAsync(html, Path.Combine(artifacts, "broken.png"), ["static/freight", "peer/nginx"]);

        Assert.Contains("bad data", page.ConsoleErrors);
        Assert.Contains(page.PageErrors, e => e.Contains("boom", StringComparison.Ordinal));
        Assert.Contains("http://127.0.0.1:9/missing.png", page.Requests);
        Assert.Equal(["peer/nginx"], page.MissingScenarios);
        var chart = Assert.Single(page.Charts);
        Assert.Equal((2, 1, null), (chart.Points, chart.VisiblePoints, chart.TableRows));
    }
}
