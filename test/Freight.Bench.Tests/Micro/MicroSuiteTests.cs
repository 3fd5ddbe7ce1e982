using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Suites.Micro;
using Freight.Micro;

namespace Freight.Bench.Tests.Micro;

/// <summary>From the micro project's result file to rows and issue 19's parser goals (synthetic runs; nothing is timed).</summary>
public sealed class MicroSuiteTests
{
    private const long Body = 20 * 1024 * 1024;

    [Fact]
    public void ToRows_NanosecondsPerIteration_BecomeBytesPerSecondSamples()
    {
        var run = Run(Case(MicroSuite.FreightParser, "large-parts", 1_000_000, 2_000_000));

        var row = Assert.Single(MicroSuiteRunner.ToRows(run));

        Assert.Equal("micro/multipart-freight/large-parts", row.Scenario);
        Assert.Equal(MicroSuite.Name, row.Suite);
        Assert.True(row.Verified);
        Assert.Equal(2, row.Runs);
        Assert.Equal([Body / 1e-3, Body / 2e-3], row.BytesPerSecond!.Samples!);
        Assert.Equal(Body, row.Parameters.BytesPerOperation);
    }

    [Fact]
    public void ToRows_FailedCase_IsANotVerifiedRowWithoutFigures()
    {
        var run = new MicroRun("short", "thread CPU time", [], ["micro/multipart-freight/tiny-parts"]);

        var row = Assert.Single(MicroSuiteRunner.ToRows(run));

        Assert.False(row.Verified);
        Assert.Null(row.BytesPerSecond);
        Assert.NotNull(row.Error);
    }

    [Fact]
    public void Ratios_FastParserAndMildHostileBody_MeetBothGoals()
    {
        // 20 MiB in ~1.3 ms is ~16 GB/s; the tiny parts take ~7× as long.
        var rows = MicroSuiteRunner.ToRows(Run(
            Case(MicroSuite.FreightParser, "large-parts", 1_300_000, 1_310_000, 1_290_000, 1_305_000, 1_295_000),
            Case(MicroSuite.FreightParser, "tiny-parts", 9_000_000, 9_100_000, 8_900_000, 9_050_000, 8_950_000)));

        var ratios = MicroRatios.Compute(rows).ToList();

        var speed = ratios.Single(r => r.Name == "multipart-freight large-parts GB/s a core");
        Assert.Equal(Body / 1.3e-3 / 1e9, speed.Value!.Value, 6);
        Assert.Equal("met", speed.Verdict);
        var tiny = ratios.Single(r => r.Name == "multipart-freight tiny-parts time ÷ large-parts time");
        Assert.Equal(9.0 / 1.3, tiny.Value!.Value, 6);
        Assert.True(tiny.LowerIsBetter);
        Assert.Equal("met", tiny.Verdict);
        Assert.Equal("bootstrap-median-ratio", tiny.Method);
    }

    [Fact]
    public void Ratios_SlowParserAndSlowHostileBody_MissBothGoals()
    {
        // ~5.2 GB/s, and the CRLF flood 12× slower.
        var rows = MicroSuiteRunner.ToRows(Run(
            Case(MicroSuite.FreightParser, "large-parts", 4_000_000, 4_050_000, 3_950_000, 4_020_000, 3_980_000),
            Case(MicroSuite.FreightParser, "crlf-flood", 48_000_000, 48_500_000, 47_500_000, 48_200_000, 47_800_000)));

        var ratios = MicroRatios.Compute(rows).ToList();

        Assert.Equal("missed", ratios.Single(r => r.Name == "multipart-freight large-parts GB/s a core").Verdict);
        Assert.Equal("missed", ratios.Single(r => r.Name == "multipart-freight crlf-flood time ÷ large-parts time").Verdict);
        // Bodies that were not measured have no figure and no verdict.
        var missing = ratios.Single(r => r.Name == "multipart-freight lookalikes time ÷ large-parts time");
        Assert.Null(missing.Value);
        Assert.Null(missing.Verdict);
    }

    [Fact]
    public void HostileBodies_AreTheBodiesTheMicroProjectBuilds()
    {
        var built = Freight.Micro.Multipart.MultipartBodyInput.All.Select(i => i.Name).ToList();

        Assert.Equal(MicroSuite.NormalBody, built[0]);
        Assert.Equal(MicroSuite.HostileBodies, built.Skip(1));
    }

    [Fact]
    public void ConsoleReport_MicroRows_ShowGigabytesPerSecondTimeAndAllocations()
    {
        var report = new BenchReport { Machine = MachineInfo.Current(), Settings = new BenchSettings(["micro"], false, 5, 1, 0.5, 0, false, "embedded") };
        report.Results.AddRange(MicroSuiteRunner.ToRows(Run(Case(MicroSuite.FreightParser, "large-parts", 1_000_000, 1_000_000, 1_000_000))));
        report.Ratios.AddRange(MicroRatios.Compute(report.Results));

        var text = ConsoleReport.Render(report);

        // 20 MiB a millisecond is 20.97 GB/s.
        Assert.Contains("GB/s a core", text);
        Assert.Contains("micro/multipart-freight/large-parts", text);
        Assert.Contains("20.97", text);
        Assert.Contains("1.000 ms", text);
        Assert.Contains("1024", text);
        Assert.Contains("multipart-freight large-parts GB/s a core", text);
    }

    [Theory]
    [InlineData("--job", "nope")]
    [InlineData("--job")]
    [InlineData("--bogus")]
    public void MicroOptions_InvalidArguments_ReturnNullWithMessage(params string[] args)
    {
        Assert.Null(MicroOptions.Parse(args, out var error));
        Assert.False(string.IsNullOrWhiteSpace(error));
    }

    [Fact]
    public void MicroOptions_JobAndFilter_AreKept()
    {
        var options = MicroOptions.Parse(["--job", "default", "--filter", "multipart", "--artifacts", "out"], out _)!;

        Assert.Equal(MicroOptions.DefaultJob, options.Job);
        Assert.Equal("multipart", options.Filter);
        Assert.Equal(Path.GetFullPath("out"), options.ArtifactsDirectory);
    }

    private static MicroRun Run(params MicroCase[] cases) => new("short", "thread CPU time", cases, []);

    private static MicroCase Case(string benchmark, string input, params double[] nanoseconds) =>
        new(MicroSuite.Id(benchmark, input), benchmark, input, input, Body, nanoseconds, 1024);
}
