using Freight.Bench.Load.Engine;
using Freight.Bench.Progress;
using Freight.Bench.Tests.Load;

namespace Freight.Bench.Tests.Progress;

public sealed class BenchProgressTests
{
    [Theory]
    [InlineData(false, false, "xterm-256color", true)]
    [InlineData(false, false, null, true)]
    [InlineData(false, true, "xterm-256color", false)]
    [InlineData(false, false, "dumb", false)]
    [InlineData(true, false, "xterm-256color", false)]
    public void UseTerminal_OnlyOnACapableTerminalWithoutNoProgress(bool noProgress, bool outputRedirected, string? term, bool expected)
    {
        Assert.Equal(expected, BenchProgress.UseTerminal(noProgress, outputRedirected, term));
    }

    [Fact]
    public void Parse_NoProgressAndNoReport_AreSetOnlyWhenGiven()
    {
        var given = BenchCommand.Parse(["--quick", "--no-progress", "--no-report"], out var error);
        var defaults = BenchCommand.Parse(["--quick"], out _);

        Assert.Null(error);
        Assert.True(given!.NoProgress);
        Assert.True(given.NoReport);
        Assert.False(defaults!.NoProgress);
        Assert.False(defaults.NoReport);
        Assert.Contains("--no-progress", Cli.FreightCli.Help("bench"), StringComparison.Ordinal);
        Assert.Contains("--no-report", Cli.FreightCli.Help("bench"), StringComparison.Ordinal);
    }

    [Fact]
    public void ProgressPlan_StepsSlowerThanPlanned_ScalesWhatIsLeft()
    {
        var time = new ManualTime();
        var plan = new ProgressPlan(time);
        plan.Start(10, time.GetTimestamp());
        time.Advance(TimeSpan.FromSeconds(3));

        // Three planned seconds took six: the seven planned after them should take about fourteen.
        plan.Step(1, time.GetTimestamp());
        time.Advance(TimeSpan.FromSeconds(2));
        plan.Step(2, time.GetTimestamp());
        time.Advance(TimeSpan.FromSeconds(4));
        plan.Step(1, time.GetTimestamp());
        var estimate = plan.Estimate(time.GetTimestamp());

        Assert.Equal(TimeSpan.FromSeconds(14), estimate.Remaining);
        Assert.Equal(TimeSpan.FromSeconds(9), estimate.Elapsed);
        Assert.Equal(9.0 / 23, estimate.Fraction, 6);
    }

    [Fact]
    public async Task LiveCounters_FollowingTwoLoadRuns_CountsEveryResponseOfBoth()
    {
        await using var server = await LoadTestServer.StartAsync();
        var live = new LiveCounters();
        live.AddVerified(100);

        var first = await LoadEngine.RunAsync(new LoadOptions { Target = server.Url("/ok"), Connections = 2, MaxRequests = 50, Monitor = live.Load });
        var second = await LoadEngine.RunAsync(new LoadOptions { Target = server.Url("/status/500"), ExpectedStatusCode = 200, MaxRequests = 7, Monitor = live.Load });

        Assert.Equal(50, first.Responses);
        Assert.Equal(7, second.BadResponses);
        Assert.Equal(new LiveReading(100 + first.BodyBytes + second.BodyBytes, 1 + 50, 7), live.Read());
    }
}
