using Freight.Bench;

namespace Freight.Bench.Tests;

public sealed class BenchOptionsTests
{
    [Fact]
    public void Parse_NoArguments_RunsEverySuiteWithFiveRuns()
    {
        var options = BenchOptions.Parse([], out var error);

        Assert.Null(error);
        Assert.Equal(BenchOptions.AllSuites, options!.Suites);
        Assert.Equal(5, options.Runs);
        Assert.Equal(20L * 1024 * 1024, options.PayloadBytes);
        Assert.Null(options.Target);
    }

    [Fact]
    public void Parse_Quick_ShortensRunsUnlessGiven()
    {
        Assert.Equal(3, BenchOptions.Parse(["--quick"], out _)!.Runs);
        Assert.Equal(7, BenchOptions.Parse(["--quick", "--runs", "7"], out _)!.Runs);
    }

    [Theory]
    [InlineData("--suite", "nope")]
    [InlineData("--runs", "0")]
    [InlineData("--target", "ftp://example")]
    [InlineData("--bogus")]
    [InlineData("--json")]
    public void Parse_InvalidArguments_ReturnsNullWithMessage(params string[] args)
    {
        var options = BenchOptions.Parse(args, out var error);

        Assert.Null(options);
        Assert.False(string.IsNullOrWhiteSpace(error));
    }

    [Fact]
    public void Parse_JsonSuiteOptions_AreKept()
    {
        var options = BenchOptions.Parse(["--suite", "json", "--records", "500", "--temp-dir", "slow-disk"], out var error);

        Assert.Null(error);
        Assert.Equal(["json"], options!.Suites);
        Assert.Equal(500, options.JsonRecords);
        Assert.Equal(Path.GetFullPath("slow-disk"), options.TempDirectory);
    }

    [Theory]
    [InlineData("/freight,nginx-tls", "peer/nginx-tls", true)]
    [InlineData("/freight,nginx-tls", "upload/freight", true)]
    [InlineData("/freight,nginx-tls", "download/file", false)]
    [InlineData("/freight", "peer/nginx-tls", false)]
    public void Matches_CommaSeparatedFilter_AnyPartSelects(string filter, string id, bool selected)
    {
        var options = BenchOptions.Parse(["--filter", filter], out _);

        Assert.Equal(selected, options!.Matches(id));
    }
}
