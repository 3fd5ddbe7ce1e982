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

    [Fact]
    public void Parse_SuiteMicro_RunsOnlyMicroWithTheShortJob()
    {
        var options = BenchOptions.Parse(["--suite", "micro"], out var error);

        Assert.Null(error);
        Assert.Equal(["micro"], options!.Suites);
        Assert.Equal("short", options.MicroJob);
        Assert.DoesNotContain("micro", BenchOptions.AllSuites);
    }

    [Fact]
    public void Parse_MicroJobDefault_IsKept()
    {
        Assert.Equal("default", BenchOptions.Parse(["--suite", "micro", "--micro-job", "default"], out _)!.MicroJob);
    }

    [Fact]
    public void Parse_MaxSeconds_SixtyByDefaultNoneWithQuickAndKeptWhenGiven()
    {
        Assert.Equal(60, BenchOptions.Parse([], out _)!.MaxSeconds);
        Assert.Equal(0, BenchOptions.Parse(["--quick"], out _)!.MaxSeconds);
        Assert.Equal(90, BenchOptions.Parse(["--quick", "--max-seconds", "90"], out _)!.MaxSeconds);
        Assert.Equal(0, BenchOptions.Parse(["--max-seconds", "0"], out _)!.MaxSeconds);
    }

    [Theory]
    [InlineData("--micro-job", "long")]
    [InlineData("--max-seconds", "-1")]
    [InlineData("--max-seconds", "soon")]
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
}
