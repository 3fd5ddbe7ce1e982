using Freight.Bench.Load.Blame;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>The saturation rule (docs/load.md, Blame), case by case.</summary>
public sealed class SaturationRuleTests
{
    [Theory]
    [InlineData(0.95, 0.2, 2, "client-bound")]
    [InlineData(0.95, 1.95, 2, "client-bound")]
    [InlineData(0.5, 1.85, 2, "server-bound")]
    [InlineData(0.5, 0.95, 1, "server-bound")]
    [InlineData(0.5, 1.7, 2, "neither")]
    [InlineData(0.9, 0.5, 2, "neither")]
    public void Judge_Cpu_VerdictByTheNinetyPercentRule(double client, double server, int cpus, string verdict) =>
        Assert.Equal(verdict, SaturationRule.Judge(Measured(client, server, cpus, null)).Id);

    [Fact]
    public void Judge_ServerOnItsOneCore_ReasonSaysOneCore() =>
        Assert.EndsWith("> 90 % of its 1 core", SaturationRule.Judge(Measured(0.5, 0.95, 1, null)).Reason, StringComparison.Ordinal);

    [Fact]
    public void Judge_NoServerSampled_Undetermined() =>
        Assert.Equal(SaturationVerdict.Undetermined, SaturationRule.Judge(Measured(0.3, null, null, null)).Verdict);

    [Fact]
    public void Judge_ClientSaturatedWithoutServer_ClientBound() =>
        Assert.Equal(SaturationVerdict.ClientBound, SaturationRule.Judge(Measured(1.2, null, null, null)).Verdict);

    [Theory]
    [InlineData(new double[] { 0, 3, 5, 2 }, "server-bound")]
    [InlineData(new double[] { 0, 0, 0, 0, 3, 5 }, "server-bound")]
    [InlineData(new double[] { 0, 1, 1, 1, 0, 1 }, "neither")]
    [InlineData(new double[] { 0, 0, 2, 0, 0, 0 }, "neither")]
    [InlineData(new double[] { 0, 0, 0, 0 }, "neither")]
    [InlineData(new double[] { 7, 9 }, "neither")]
    public void Judge_ThreadPoolQueue_BacklogIsServerBound(double[] queue, string verdict) =>
        Assert.Equal(verdict, SaturationRule.Judge(Measured(0.3, 0.4, 2, queue)).Id);

    [Fact]
    public void Judge_ClientBound_ReasonSaysTheFigureIsAFloor() =>
        Assert.StartsWith("client-bound — this figure is a floor for the server", SaturationRule.Judge(Measured(1, 0.1, 2, null)).Reason, StringComparison.Ordinal);

    [Theory]
    [InlineData(0, 5.0, "no verdict: no response measured")]
    [InlineData(1, 0.06, "no verdict: the run lasted 0.06 s; a verdict needs 1 s or more")]
    public void Judge_NothingOrTooLittleMeasured_NoVerdict(long requests, double seconds, string reason)
    {
        var saturation = SaturationRule.Judge(new SaturationInputs(1.5, 0.1, 2, null, requests, seconds));

        Assert.Equal((SaturationVerdict.Undetermined, reason), (saturation.Verdict, saturation.Reason));
    }

    /// <summary>A run long enough, with responses: what the CPU and queue rules judge.</summary>
    private static SaturationInputs Measured(double client, double? server, int? cpus, IReadOnlyList<double>? queue) =>
        new(client, server, cpus, queue, RequestsMeasured: 100, RunSeconds: 3);
}
