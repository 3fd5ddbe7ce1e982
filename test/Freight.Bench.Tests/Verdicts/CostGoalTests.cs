using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Suites.Files;
using Freight.Bench.Suites.Transfer;

namespace Freight.Bench.Tests.Verdicts;

/// <summary>
/// Cost goals: server CPU seconds per GiB of one row over another's, lower is better, with the speed goals' paired
/// interval drawn from each run's cost. The samples are synthetic, so each interval and verdict is known exactly.
/// </summary>
public sealed class CostGoalTests
{
    private const long Size = 1L << 30;

    private const string GetCost = "server CPU s/GiB: files/get / nginx-get, 1 GiB";

    private const string PutCost = "server CPU s/GiB: files/put / nginx-put, 1 GiB";

    // nginx's per-run CPU s/GiB, with run-to-run weather a factor of 2 apart: pairing takes it out.
    private static readonly double[] Nginx = [0.40, 0.80, 0.50, 0.45, 0.60];

    [Fact]
    public void FilesRatios_ServerCpuBelowNginxInEveryPair_CostGoalMetWithTheExactInterval()
    {
        var ratio = FilesCost(GetCost, Times(Nginx, 0.9), Nginx);

        Assert.Equal(0.9, ratio.Estimate!.Value, 12);
        Assert.Equal(0.9, ratio.Low!.Value, 12);
        Assert.Equal(0.9, ratio.High!.Value, 12);
        Assert.Equal(5, ratio.Runs);
        Assert.Equal("paired-log-t", ratio.Method);
        Assert.Equal("<=", ratio.Comparison);
        Assert.True(ratio.LowerIsBetter);
        Assert.Equal("met", ratio.Verdict);
    }

    [Fact]
    public void FilesRatios_ServerCpuAboveNginxInEveryPair_CostGoalMissed()
    {
        var ratio = FilesCost(PutCost, Times(Nginx, 1.1), Nginx);

        Assert.Equal(1.1, ratio.Low!.Value, 12);
        Assert.Equal("missed", ratio.Verdict);
    }

    [Fact]
    public void FilesRatios_ServerCpuEqualToNginxInEveryPair_UpperBoundAtTheGoalIsMet()
    {
        // "≤ 1.0": an interval whose upper bound is exactly the goal is wholly on the goal's side.
        var ratio = FilesCost(GetCost, Nginx, Nginx);

        Assert.Equal(1.0, ratio.High!.Value, 12);
        Assert.Equal("met", ratio.Verdict);
    }

    [Fact]
    public void FilesRatios_ServerCpuStraddlingNginx_CostGoalInconclusive()
    {
        // Per-pair ratios 0.9, 1.1, 0.9, 1.1, 1.0: geometric mean ≈ 0.996, the interval holds 1.0 on both sides.
        double[] freight = [0.36, 0.88, 0.45, 0.495, 0.60];
        var ratio = FilesCost(GetCost, freight, Nginx);

        Assert.True(ratio.Low < 1.0 && ratio.High > 1.0, $"[{ratio.Low}–{ratio.High}]");
        Assert.Equal("inconclusive", ratio.Verdict);
    }

    [Fact]
    public void FilesRatios_ServerCpuWithoutRuns_CostGoalHasTheTotalsRatioButNoVerdict()
    {
        // Result files from before per-run costs: the totals compare, one figure, no interval.
        var ratio = FilesRatios.Compute([Row(FilesSuite.Get, 0.5, null), Row(FilesSuite.NginxGet, 0.4, null)], Size).Single(r => r.Name == GetCost);

        Assert.Equal(1.25, ratio.Value!.Value, 12);
        Assert.False(ratio.GoalMet);
        Assert.Null(ratio.Interval);
        Assert.Null(ratio.Verdict);
    }

    [Fact]
    public void TransferRatios_DownloadCost_IsAgainstTheFastestOtherDownload()
    {
        // stream-4k is the fastest other variant (the speed goal's denominator), file the cheapest: the cost goal
        // compares with the same row the speed goal does.
        ScenarioResult[] rows =
        [
            Transfer("download/freight", 2000, Nginx),
            Transfer("download/stream-4k", 2100, Times(Nginx, 0.8)),
            Transfer("download/file", 1300, Times(Nginx, 2)),
            .. TransferRatios.OtherDownloads.Where(id => id is not "download/stream-4k" and not "download/file").Select(id => Transfer(id, 1000, Nginx)),
        ];

        var ratio = TransferRatios.Compute([], rows).Single(r => r.Name == "server CPU s/GiB: download-freight / best other download");

        Assert.Equal("download/stream-4k (http h1 memory 64K) server CPU s/GiB", ratio.Denominator);
        Assert.Equal(1.25, ratio.Estimate!.Value, 12);
        Assert.Equal("missed", ratio.Verdict);
    }

    private static RatioResult FilesCost(string name, double[] freight, double[] nginx)
    {
        var id = name == GetCost ? (FilesSuite.Get, FilesSuite.NginxGet) : (FilesSuite.Put, FilesSuite.NginxPut);
        return FilesRatios.Compute([Row(id.Item1, Mean(freight), freight), Row(id.Item2, Mean(nginx), nginx)], Size).Single(r => r.Name == name);
    }

    private static double[] Times(double[] values, double factor) => [.. values.Select(v => v * factor)];

    private static double Mean(double[] values) => values.Average();

    private static ScenarioResult Row(string id, double cpuSecondsPerGiB, double[]? perRun) => new()
    {
        Scenario = id,
        Suite = FilesSuite.Name,
        Parameters = new ScenarioParameters { PayloadBytes = Size },
        Verified = true,
        BytesPerSecond = Summary.OfRuns([1e9, 1e9, 1e9, 1e9, 1e9]),
        Server = new SideCost(cpuSecondsPerGiB) { CpuSecondsPerGiBSamples = perRun },
    };

    private static ScenarioResult Transfer(string id, double mibPerSecond, double[] cpuPerRun) => new()
    {
        Scenario = id,
        Parameters = new ScenarioParameters { Label = "http h1 memory 64K" },
        Verified = true,
        BytesPerSecond = Summary.OfRuns([.. cpuPerRun.Select(_ => mibPerSecond * 1048576)]),
        Server = new SideCost(Mean(cpuPerRun)) { CpuSecondsPerGiBSamples = cpuPerRun },
    };
}
