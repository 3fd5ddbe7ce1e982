using Freight.Bench.Reports.Output;

namespace Freight.Bench.Tests.Reports;

/// <summary>The report's escaping (HTML, Markdown, CSV) and number formatting, one rule at a time.</summary>
public sealed class ReportFormattingTests
{
    [Fact]
    public void HtmlText_MarkupCharacters_BecomeCharacterReferences()
    {
        Assert.Equal("&lt;a href=&quot;x&quot;&gt;&#39;R&amp;D&#39;&lt;/a&gt;", HtmlText.Encode("<a href=\"x\">'R&D'</a>"));
    }

    [Theory]
    [InlineData("upload/multipart-freight — http h1 memory 64K →file")]
    [InlineData("1→500 conns over 60 s, 1000 ms")]
    [InlineData("")]
    public void HtmlText_TextWithoutMarkup_IsUnchanged(string text)
    {
        Assert.Equal(text, HtmlText.Encode(text));
    }

    [Fact]
    public void MarkdownEscape_PipesEmphasisLinksAndHtml_AreEscaped()
    {
        Assert.Equal(@"a\|b \*c\* \_d\_ \`e\` \[f\](g) &lt;br&gt; C:\\temp", MarkdownReportWriter.Escape("a|b *c* _d_ `e` [f](g) <br> C:\\temp"));
    }

    [Fact]
    public void MarkdownEscape_LineBreak_BecomesSpaceSoTheRowStaysOneLine()
    {
        Assert.Equal("first second", MarkdownReportWriter.Escape("first\r\nsecond"));
    }

    [Theory]
    [InlineData("plain", "plain")]
    [InlineData("4 KiB, 32 conns", "\"4 KiB, 32 conns\"")]
    [InlineData("say \"hi\"", "\"say \"\"hi\"\"\"")]
    [InlineData("two\nlines", "\"two\nlines\"")]
    [InlineData("cr\ronly", "\"cr\ronly\"")]
    [InlineData("", "")]
    public void CsvField_CommaQuoteOrLineBreak_IsQuotedWithQuotesDoubled(string value, string expected)
    {
        Assert.Equal(expected, CsvReportWriter.Field(value));
    }

    [Fact]
    public void CsvRender_HeaderThenRecords_CrLfEndsAndFullInvariantNumbers()
    {
        var table = new ReportTable("t", "t", ["scenario", "requests/s", "note"]);
        table.Add(ReportCell.Of("static/freight"), ReportCell.Of(101902.25), ReportCell.Of("a, b"));
        table.Add(ReportCell.Of("peer/nginx"), ReportCell.Of((double?)null), ReportCell.Of("0.000044518 s"));
        table.Add(ReportCell.Of("tiny"), ReportCell.Of(4.4518e-5), ReportCell.Empty);

        Assert.Equal(
            "scenario,requests/s,note\r\nstatic/freight,101902.25,\"a, b\"\r\npeer/nginx,,0.000044518 s\r\ntiny,0.000044518,\r\n",
            CsvReportWriter.Render(table));
    }

    [Theory]
    [InlineData(101902.4, "101,902")]
    [InlineData(42.54, "42.5")]
    [InlineData(2.384, "2.38")]
    [InlineData(0.573, "0.573")]
    [InlineData(0.000573, "0.000573")]
    [InlineData(30, "30")]
    [InlineData(0, "0")]
    [InlineData(-12.34, "-12.3")]
    public void ReportNumber_Format_ThreeSignificantDigitsWithSeparators(double value, string expected)
    {
        Assert.Equal(expected, ReportNumber.Format(value));
    }

    [Fact]
    public void ReportNumber_Raw_NoSeparatorsUpToNineDecimalsOrFifteenDigits()
    {
        // A custom format keeps 15 significant digits of a double: far below the runs' own spread.
        Assert.Equal("2124794746.39779", ReportNumber.Raw(2124794746.397794));
        Assert.Equal("0.000044518", ReportNumber.Raw(4.4518e-5));
        Assert.Equal("0.333333333", ReportNumber.Raw(1.0 / 3));
    }

    [Theory]
    [InlineData(6.5, 8, 2)]
    [InlineData(101902, 125000, 25000)]
    [InlineData(56.03, 60, 20)]
    [InlineData(0.9, 1, 0.2)]
    [InlineData(0, 1, 0.2)]
    public void AxisScale_For_RoundMaximumAndStep(double max, double expectedMax, double expectedStep)
    {
        var scale = AxisScale.For(max);

        Assert.Equal(expectedMax, scale.Max, 9);
        Assert.Equal(expectedStep, scale.Step, 9);
        Assert.True(scale.Max >= max);
    }

    [Fact]
    public void AxisScale_Format_SameDecimalsOnEveryTick()
    {
        var scale = AxisScale.For(6); // 0 … 6 in steps of 2

        var ticks = scale.Ticks().Select(scale.Format).ToArray();

        Assert.Equal(["0", "2", "4", "6"], ticks);
        Assert.Equal(["0.0", "2.5", "5.0", "7.5", "10.0"], new AxisScale(10, 2.5).Ticks().Select(new AxisScale(10, 2.5).Format));
    }

    [Fact]
    public void ReportIds_SameText_GetsNumberedSuffix()
    {
        var ids = new ReportIds();

        Assert.Equal("static-requests-s-4-kib", ids.Take("static requests/s 4 KiB"));
        Assert.Equal("static-requests-s-4-kib-2", ids.Take("Static — requests/s, 4 KiB"));
        Assert.Equal("x", ids.Take("→"));
    }
}
