using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Suites.Files;
using Freight.Bench.Suites.Json;

namespace Freight.Bench.Tests.Verdicts;

/// <summary>The suites' goal rows draw their intervals from the rows' per-run figures, paired run by run.</summary>
public sealed class GoalRowsTests
{
    private const long Size = 1L << 30;

    [Fact]
    public void FilesRatios_RowsWithRuns_GoalHasPairedIntervalAndVerdict()
    {
        // files/get is 1.05× nginx-get in every pair, whatever the pair's weather: met against 1.0.
        ScenarioResult[] rows =
        [
            Row(FilesSuite.Get, Summary.OfRuns([1050, 2100, 525, 1050, 1575])),
            Row(FilesSuite.NginxGet, Summary.OfRuns([1000, 2000, 500, 1000, 1500])),
        ];

        var ratio = FilesRatios.Compute(rows, Size).Single(r => r.Numerator == FilesSuite.Get && r.Denominator == FilesSuite.NginxGet);

        Assert.Equal(1.05, ratio.Value!.Value, 12);
        Assert.Equal(1.05, ratio.Estimate!.Value, 12);
        Assert.Equal(1.05, ratio.Low!.Value, 12);
        Assert.Equal(1.05, ratio.High!.Value, 12);
        Assert.Equal(5, ratio.Runs);
        Assert.Equal("met", ratio.Verdict);
    }

    [Fact]
    public void FilesRatios_RowsWithoutRuns_GoalKeepsThePointComparisonOnly()
    {
        ScenarioResult[] rows =
        [
            Row(FilesSuite.Get, new Summary(1050, 1050, 1050)),
            Row(FilesSuite.NginxGet, new Summary(1000, 1000, 1000)),
        ];

        var ratio = FilesRatios.Compute(rows, Size).Single(r => r.Numerator == FilesSuite.Get && r.Denominator == FilesSuite.NginxGet);

        Assert.Equal(1.05, ratio.Value!.Value, 12);
        Assert.True(ratio.GoalMet);
        Assert.Null(ratio.Interval);
        Assert.Null(ratio.Verdict);
    }

    [Fact]
    public void JsonRatios_RowsWithPerRunP50sAndAllocations_SpeedupAndAllocationGoalsHavePairedIntervals()
    {
        // newtonsoft-buffered takes 4× stj's time in every run and allocates 10× per response: both goals met.
        ScenarioResult[] rows =
        [
            JsonRow(JsonSuite.Stj, p50s: [0.5, 0.6, 0.4, 0.5, 0.55], allocations: [1e6, 1e6, 1e6, 1e6, 1e6]),
            JsonRow(JsonSuite.NewtonsoftBuffered, p50s: [2.0, 2.4, 1.6, 2.0, 2.2], allocations: [1e7, 1e7, 1e7, 1e7, 1e7]),
            JsonRow(Freight.Bench.Verdicts.AaControl.CopyId(JsonSuite.Stj), p50s: [0.5, 0.6, 0.4, 0.5, 0.55], allocations: [1e6, 1e6, 1e6, 1e6, 1e6]),
        ];

        var ratios = JsonRatios.Compute(rows).ToList();

        var speedup = ratios.Single(r => r.Name == "stj vs newtonsoft-buffered, c=1");
        Assert.Equal(4.0, speedup.Estimate!.Value, 9);
        Assert.Equal(5, speedup.Runs);
        Assert.Equal("paired-log-t", speedup.Method);
        Assert.Equal("met", speedup.Verdict);
        var allocations = ratios.Single(r => r.Name == "stj / newtonsoft-buffered allocations per response");
        Assert.Equal(0.1, allocations.High!.Value, 9);
        Assert.Equal("met", allocations.Verdict);
        var control = ratios.Single(r => r.Name == "A/A json/stj#a / json/stj");
        Assert.True(control.Interval!.Contains(1.0));
    }

    private static ScenarioResult JsonRow(string id, double[] p50s, double[] allocations) => new()
    {
        Scenario = id,
        Suite = JsonSuite.Name,
        Parameters = new ScenarioParameters { Label = "80k records c=1", Concurrency = 1 },
        Verified = true,
        LatencySeconds = new Percentiles(p50s.Order().ElementAt(2), 0, 0, 0, 0) { P50Runs = p50s },
        Server = new SideCost(null, AllocatedBytesPerTransfer: allocations[0]) { AllocatedBytesPerTransferRuns = allocations },
    };

    private static ScenarioResult Row(string id, Summary? rates) => new()
    {
        Scenario = id,
        Suite = FilesSuite.Name,
        Parameters = new ScenarioParameters { PayloadBytes = Size },
        Verified = true,
        BytesPerSecond = rates,
    };
}
