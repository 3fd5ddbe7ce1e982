using Freight.Bench.Reports;
using Freight.Bench.Scenarios;

namespace Freight.Bench.Tests.Verdicts;

/// <summary>The suites' goal rows draw their intervals from the rows' per-run figures, paired run by run.</summary>
public sealed class GoalRowsTests
{
    private const long Size = 1L << 30;

    [Fact]
    public void FilesRatios_RowsWithRuns_GoalHasPairedIntervalAndVerdict()
    {
        // files/get is 0.95× nginx-get in every pair, whatever the pair's weather: met against 0.85.
        ScenarioResult[] rows =
        [
            Row(FilesSuite.Get, Summary.OfRuns([950, 1900, 475, 950, 1425])),
            Row(FilesSuite.NginxGet, Summary.OfRuns([1000, 2000, 500, 1000, 1500])),
        ];

        var ratio = FilesRatios.Compute(rows, Size).Single(r => r.Numerator == FilesSuite.Get && r.Denominator == FilesSuite.NginxGet);

        Assert.Equal(0.95, ratio.Value!.Value, 12);
        Assert.Equal(0.95, ratio.Estimate!.Value, 12);
        Assert.Equal(0.95, ratio.Low!.Value, 12);
        Assert.Equal(0.95, ratio.High!.Value, 12);
        Assert.Equal(5, ratio.Runs);
        Assert.Equal("met", ratio.Verdict);
    }

    [Fact]
    public void FilesRatios_RowsWithoutRuns_GoalKeepsThePointComparisonOnly()
    {
        ScenarioResult[] rows =
        [
            Row(FilesSuite.Get, new Summary(950, 950, 950)),
            Row(FilesSuite.NginxGet, new Summary(1000, 1000, 1000)),
        ];

        var ratio = FilesRatios.Compute(rows, Size).Single(r => r.Numerator == FilesSuite.Get && r.Denominator == FilesSuite.NginxGet);

        Assert.Equal(0.95, ratio.Value!.Value, 12);
        Assert.True(ratio.GoalMet);
        Assert.Null(ratio.Interval);
        Assert.Null(ratio.Verdict);
    }

    private static ScenarioResult Row(string id, Summary? rates) => new()
    {
        Scenario = id,
        Suite = FilesSuite.Name,
        Parameters = new Dictionary<string, object> { ["payloadBytes"] = Size },
        Verified = true,
        BytesPerSecond = rates,
    };
}
