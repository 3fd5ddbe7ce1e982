using Freight.Bench;
using Freight.Bench.Suites.Files;
using Freight.Bench.Suites.Json;
using Freight.Bench.Suites.Static;
using Freight.Bench.Suites.Threads;
using Freight.Bench.Suites.Transfer;

namespace Freight.Bench.Tests;

public sealed class BenchOptionsTests
{
    [Fact]
    public void Parse_NoArguments_RunsEverySuiteWithFiveRuns()
    {
        var options = BenchCommand.Parse([], out var error);

        Assert.Null(error);
        Assert.Equal(BenchOptions.AllSuites, options!.Suites);
        Assert.Equal(5, options.Runs);
        Assert.Equal(20L * 1024 * 1024, options.PayloadBytes);
        Assert.Null(options.Target);
    }

    [Fact]
    public void Parse_Quick_ShortensRunsUnlessGiven()
    {
        Assert.Equal(3, BenchCommand.Parse(["--quick"], out _)!.Runs);
        Assert.Equal(7, BenchCommand.Parse(["--quick", "--runs", "7"], out _)!.Runs);
    }

    [Fact]
    public void Parse_SuiteMicro_RunsOnlyMicroWithTheShortJob()
    {
        var options = BenchCommand.Parse(["--suite", "micro"], out var error);

        Assert.Null(error);
        Assert.Equal(["micro"], options!.Suites);
        Assert.Equal("short", options.MicroJob);
        Assert.DoesNotContain("micro", BenchOptions.AllSuites);
    }

    [Fact]
    public void Parse_MicroJobDefault_IsKept()
    {
        Assert.Equal("default", BenchCommand.Parse(["--suite", "micro", "--micro-job", "default"], out _)!.MicroJob);
    }

    [Fact]
    public void Parse_MaxSeconds_FifteenByDefaultSixtyWithFullNoneWithQuickAndKeptWhenGiven()
    {
        Assert.Equal(10, BenchCommand.Parse([], out _)!.MaxSeconds);
        Assert.Equal(60, BenchCommand.Parse(["--full"], out _)!.MaxSeconds);
        Assert.Equal(0, BenchCommand.Parse(["--quick"], out _)!.MaxSeconds);
        Assert.Equal(90, BenchCommand.Parse(["--quick", "--max-seconds", "90"], out _)!.MaxSeconds);
        Assert.Equal(0, BenchCommand.Parse(["--max-seconds", "0"], out _)!.MaxSeconds);
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
        var options = BenchCommand.Parse(args, out var error);

        Assert.Null(options);
        Assert.False(string.IsNullOrWhiteSpace(error));
    }

    [Fact]
    public void Parse_JsonSuiteOptions_AreKept()
    {
        var options = BenchCommand.Parse(["--suite", "json", "--records", "500", "--temp-dir", "slow-disk"], out var error);

        Assert.Null(error);
        Assert.Equal(["json"], options!.Suites);
        Assert.Equal(500, options.JsonRecords);
        Assert.Equal(Path.GetFullPath("slow-disk"), options.TempDirectory);
    }

    [Fact]
    public void Parse_NoArguments_HeadlineRowsInHalfSecondRuns()
    {
        var options = BenchCommand.Parse([], out var error)!;

        Assert.Null(error);
        Assert.False(options.Full);
        Assert.False(options.Quick);
        Assert.Equal((5, 0.5, 0.5), (options.Runs, options.RunSeconds, options.WarmupSeconds));
        Assert.Equal((200, 10.0), (options.ThreadsRampTo, options.ThreadsRampSeconds));
    }

    [Fact]
    public void Parse_Full_IsTheWholeMatrixInOneSecondRuns()
    {
        var options = BenchCommand.Parse(["--full"], out var error)!;

        Assert.Null(error);
        Assert.True(options.Full);
        Assert.Equal(BenchOptions.AllSuites, options.Suites);
        Assert.Equal((5, 1.0, 0.5), (options.Runs, options.RunSeconds, options.WarmupSeconds));
        Assert.Equal((500, 20.0), (options.ThreadsRampTo, options.ThreadsRampSeconds));
    }

    [Fact]
    public void Parse_Quick_IsTheDefaultsRowsInShorterRuns()
    {
        var options = BenchCommand.Parse(["--quick"], out var error)!;

        Assert.Null(error);
        Assert.True(options.Quick);
        Assert.False(options.Full);
        Assert.Equal((3, 0.25, 0.25), (options.Runs, options.RunSeconds, options.WarmupSeconds));
        Assert.Equal((100, 8.0), (options.ThreadsRampTo, options.ThreadsRampSeconds));
    }

    [Fact]
    public void Parse_QuickAndFull_IsRejected()
    {
        Assert.Null(BenchCommand.Parse(["--quick", "--full"], out var error));
        Assert.Contains("--quick and --full", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_GivenValues_WinOverTheScopesDefaults()
    {
        var options = BenchCommand.Parse(["--quick", "--run-seconds", "2", "--ramp-to", "50", "--ramp-seconds", "30"], out _)!;

        Assert.Equal((2.0, 50, 30.0), (options.RunSeconds, options.ThreadsRampTo, options.ThreadsRampSeconds));
    }

    [Fact]
    public void TransferSuite_Default_IsTheHeadlineRowsOnly()
    {
        var headline = TransferSuite.Create(full: false);

        Assert.Equal(
            [
                "tcp/loopback", "download/stream-4k", "download/stream-default", "download/stream-64k", "download/bytes", "download/pipewriter",
                "download/file", "download/freight", "upload/iformfile", "upload/multipart-reader", "upload/multipart-freight", "upload/freight",
                "download/freight#a",
            ],
            headline.Select(s => s.RowId));
        Assert.All(headline.Where(s => s.Direction != TransferDirection.Probe), s => Assert.Equal("http h1 memory 64K", s.Describe()));
    }

    [Fact]
    public void TransferSuite_Full_IsEveryScenarioOfTheMatrix()
    {
        var full = TransferSuite.Create(full: true);

        // 34 rows of the HTTP matrix, h2c and nginx-tls both ways, the HTTPS upload to a file, and the A/A copy.
        Assert.Equal(40, full.Count);
        Assert.Contains(full, s => s.Scheme == "https" && s.Protocol == "h2");
        Assert.Contains(full, s => s.Server == TransferScenario.StockPoolServer);
        Assert.Equal(TransferSuite.Create().Count, full.Count);
    }

    [Fact]
    public void FilesSuite_Sizes_DefaultOneGiBFullBothQuickQuarterGiB()
    {
        Assert.Equal([1L << 30], FilesSuite.Sizes(quick: false, full: false));
        Assert.Equal([20L << 20, 1L << 30], FilesSuite.Sizes(quick: false, full: true));
        Assert.Equal([256L << 20], FilesSuite.Sizes(quick: true, full: false));
        // Four Freight rows and four nginx rows at 1 GiB (the PUTs twice: HttpClient and the sendfile client), and the
        // A/A copy of files/get.
        Assert.Equal(9, FilesSuite.Create(quick: false, full: false).Count);
    }

    [Fact]
    public void StaticSuite_DefaultAndQuick_AreTheGoalRowsAtThirtyTwoConnections()
    {
        foreach (var rows in new[] { StaticSuite.Create(quick: false, full: false), StaticSuite.Create(quick: true, full: false), StaticSuite.Create(quick: true) })
        {
            // At four sizes: the stock StaticFiles and Freight under the engine (and the A/A copy of Freight at 4 KiB),
            // Freight and nginx under wrk (the goals against nginx).
            Assert.Equal(17, rows.Count);
            Assert.All(rows, r => Assert.Equal(StaticSuite.GoalConnections, r.Connections));
            Assert.Equal(
                [(StaticSuite.Freight, StaticScenario.Engine), (StaticSuite.StaticFiles, StaticScenario.Engine), (StaticSuite.Nginx, StaticScenario.Wrk), (StaticSuite.Freight, StaticScenario.Wrk)],
                rows.Select(r => (r.Id, r.Generator)).Distinct().OrderBy(r => r.Generator, StringComparer.Ordinal).ThenBy(r => r.Id, StringComparer.Ordinal));
            Assert.Single(rows, r => r.AaCopy && r.Generator == StaticScenario.Engine && r.FileBytes == StaticSuite.FileSizes[0]);
        }

        var full = StaticSuite.Create(quick: false, full: true);
        // Four sizes × three servers × four connection counts, and the A/A copy of Freight at 4 KiB.
        Assert.Equal((4 * 3 * 4) + 1, full.Count(r => r.Generator == StaticScenario.Engine));
        Assert.Equal(4 * 2, full.Count(r => r.Generator == StaticScenario.Wrk));
    }

    [Fact]
    public void ThreadsSuite_DefaultIsTheStudysTwoActionsFullAddsSyncOverAsync()
    {
        Assert.Equal(["threads/sleep", "threads/delay"], ThreadsSuite.Create(200, 10, full: false).Select(s => s.Id));
        Assert.Equal(["threads/sleep", "threads/delay", "threads/sync-over-async"], ThreadsSuite.Create(500, 20, full: true).Select(s => s.Id));
    }

    [Fact]
    public void JsonSuite_DefaultOneClientFullAlsoEight()
    {
        Assert.Equal([1], JsonSuite.Create(1000, full: false).Select(s => s.Concurrency).Distinct());
        Assert.Equal([1, 8], JsonSuite.Create(1000, full: true).Select(s => s.Concurrency).Distinct());
    }

    [Theory]
    [InlineData("/freight,nginx-tls", "peer/nginx-tls", true)]
    [InlineData("/freight,nginx-tls", "upload/freight", true)]
    [InlineData("/freight,nginx-tls", "download/file", false)]
    [InlineData("/freight", "peer/nginx-tls", false)]
    public void Matches_CommaSeparatedFilter_AnyPartSelects(string filter, string id, bool selected)
    {
        var options = BenchCommand.Parse(["--filter", filter], out _);

        Assert.Equal(selected, options!.Matches(id));
    }
}
