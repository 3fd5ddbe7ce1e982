using Freight.Bench.Reports.Output;

namespace Freight.Bench.Tests.Reports;

/// <summary>The report's ids, which name its CSV and SVG files: readable, unique, and short enough for a file name.</summary>
public sealed class ReportIdsTests
{
    [Fact]
    public void Take_TwoLongTextsAlikeUpToTheirEnds_DistinctIdsWithinTheLimit()
    {
        var ids = new ReportIds();
        var start = "load latency load/get — url=http://127.0.0.1:8080/json?q=" + new string('x', 400);

        var first = ids.Take(start + "a");
        var second = ids.Take(start + "b");

        Assert.NotEqual(first, second);
        Assert.InRange(first.Length, 1, ReportIds.MaxLength);
        Assert.InRange(second.Length, 1, ReportIds.MaxLength);
        Assert.StartsWith("load-latency-load-get-url-http-127-0-0-1-8080-json-q-xxx", first, StringComparison.Ordinal);
    }

    [Fact]
    public void Take_SameLongTextTwice_SecondGetsASuffix()
    {
        var ids = new ReportIds();
        var text = "series " + new string('y', 300);

        Assert.NotEqual(ids.Take(text), ids.Take(text));
    }

    [Fact]
    public void Take_ShortText_ItsSlugUnchanged()
    {
        Assert.Equal("load-latency-load-get", new ReportIds().Take("load latency load/get"));
    }
}
