using Freight.Bench.Peers;

namespace Freight.Bench.Tests.Peers;

/// <summary><see cref="Wrk.Parse"/> on wrk's real output (<see cref="WrkSamples"/>): every figure, every unit.</summary>
public sealed class WrkParseTests
{
    private const double Mebi = 1024 * 1024;

    private const double Gibi = 1024 * Mebi;

    [Fact]
    public void Parse_FileRun_EveryFigureInSiUnits()
    {
        var result = Wrk.Parse(WrkSamples.Ok);

        Assert.NotNull(result);
        Assert.Equal(10, result.Connections);
        Assert.Equal(29427, result.Requests);
        Assert.Equal(2.01, result.DurationSeconds, 9);
        Assert.Equal((long)Math.Round(2.75 * Gibi), result.BytesRead);
        Assert.Equal(14613.20, result.RequestsPerSecond, 9);
        Assert.Equal(1.36 * Gibi, result.TransferBytesPerSecond, 3);
        Assert.Equal(0.86e-3, result.Latency.Mean!.Value, 12);
        Assert.Equal(2.14e-3, result.LatencyStdevSeconds, 12);
        Assert.Equal(29.64e-3, result.Latency.Max, 12);
        Assert.Equal(484e-6, result.Latency.P50, 12);
        Assert.Equal(592e-6, result.Latency.P75, 12);
        Assert.Equal(822e-6, result.Latency.P90, 12);
        Assert.Equal(12.53e-3, result.Latency.P99, 12);
        Assert.Equal(0, result.Non2xxResponses);
        Assert.Equal(0, result.SocketErrors + result.Timeouts);
    }

    [Fact]
    public void SplitTimes_DashsTimesAfterTheReport_WrksCpuAndTheReportAlone()
    {
        var (report, cpu) = Wrk.SplitTimes(WrkSamples.Ok + "0m0.004000s 0m0.000000s\n1m2.150000s 0m2.680000s\n");

        Assert.Equal(WrkSamples.Ok, report);
        Assert.Equal(62.15 + 2.68, cpu!.Value, 9);
        Assert.Equal(29427, Wrk.Parse(report)!.Requests);
    }

    [Fact]
    public void SplitTimes_BashsThreeDecimalsAndNoTimes()
    {
        Assert.Equal(0.5 + 1.25, Wrk.SplitTimes("x\n0m0.001s 0m0.002s\n0m0.500s 0m1.250s\n").CpuSeconds!.Value, 9);
        Assert.Equal((WrkSamples.Ok, (double?)null), Wrk.SplitTimes(WrkSamples.Ok));
    }

    [Fact]
    public void Parse_NotFound_CountsNon2xxResponses()
    {
        var result = Wrk.Parse(WrkSamples.NotFound);

        Assert.NotNull(result);
        Assert.Equal(73106, result.Requests);
        Assert.Equal(73106, result.Non2xxResponses);
        Assert.Equal((long)Math.Round(21.47 * Mebi), result.BytesRead);
        Assert.Equal(10.72 * Mebi, result.TransferBytesPerSecond, 3);
        Assert.Equal(1.82e-3, result.Latency.P90, 12);
    }

    [Fact]
    public void Parse_ServerKilled_WriteErrors()
    {
        var result = Wrk.Parse(WrkSamples.ServerKilled);

        Assert.NotNull(result);
        Assert.Equal((0L, 0L, 97130L, 0L), (result.ConnectErrors, result.ReadErrors, result.WriteErrors, result.Timeouts));
        Assert.Equal(97130, result.SocketErrors);
        Assert.Equal(32290, result.Requests);
    }

    [Fact]
    public void Parse_ConnectionsReset_ReadErrorsAndZeroLatency()
    {
        var result = Wrk.Parse(WrkSamples.ConnectionsReset);

        Assert.NotNull(result);
        Assert.Equal(3667, result.ReadErrors);
        Assert.Equal(3667, result.SocketErrors);
        Assert.Equal(0, result.Requests);
        Assert.Equal(0, result.RequestsPerSecond);
        Assert.Equal(0, result.TransferBytesPerSecond);
        Assert.Equal(0, result.Latency.P99);
    }

    [Fact]
    public void Parse_SlowServerTimeouts_TimeoutsApartFromSocketErrors()
    {
        var result = Wrk.Parse(WrkSamples.SlowServerTimeouts);

        Assert.NotNull(result);
        Assert.Equal(8, result.Timeouts);
        Assert.Equal(0, result.SocketErrors);
        Assert.Equal(320, result.BytesRead);
        Assert.Equal(106.32, result.TransferBytesPerSecond, 9);
        Assert.Equal(2.66, result.RequestsPerSecond, 9);
    }

    [Fact]
    public void Parse_SlowServerSeconds_LatenciesInSeconds()
    {
        var result = Wrk.Parse(WrkSamples.SlowServerSeconds);

        Assert.NotNull(result);
        Assert.Equal(4, result.Connections);
        Assert.Equal(1.5, result.Latency.Mean!.Value, 12);
        Assert.Equal(181.55e-6, result.LatencyStdevSeconds, 12);
        Assert.Equal(1.5, result.Latency.Max, 12);
        Assert.Equal((1.5, 1.5, 1.5, 1.5), (result.Latency.P50, result.Latency.P75, result.Latency.P90, result.Latency.P99));
        Assert.Equal(4.01, result.DurationSeconds, 9);
    }

    [Theory]
    [InlineData(WrkSamples.Refused)]
    [InlineData("")]
    public void Parse_NoReport_Null(string output) => Assert.Null(Wrk.Parse(output));
}
