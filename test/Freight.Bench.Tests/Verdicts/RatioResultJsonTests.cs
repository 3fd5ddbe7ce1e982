using System.Text.Json;
using System.Text.Json.Nodes;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Tests.Verdicts;

/// <summary>The goals' intervals and verdicts in the result JSON and the console: added fields, the old ones kept.</summary>
public sealed class RatioResultJsonTests
{
    private static readonly double[] Faster = [2000, 2100, 1900, 2050, 1950];
    private static readonly double[] Slower = [1000, 1000, 1000, 1000, 1000];

    [Fact]
    public void Serialize_RatioWithRuns_HasIntervalVerdictAndTheOldFields()
    {
        var ratio = new RatioResult("a / b", "a", "b", 2.0, Goal: 1.5).WithRuns(Faster, Slower);

        var json = JsonSerializer.SerializeToNode(ratio, BenchReport.JsonOptions)!.AsObject();

        var expected = RatioStatistics.Paired(Faster, Slower);
        Assert.Equal(2.0, (double)json["value"]!);
        Assert.True((bool)json["goalMet"]!);
        Assert.False((bool)json["lowerIsBetter"]!);
        Assert.Equal(expected.Estimate, (double)json["estimate"]!);
        Assert.Equal(expected.Low, (double)json["low"]!);
        Assert.Equal(expected.High, (double)json["high"]!);
        Assert.Equal(0.95, (double)json["level"]!);
        Assert.Equal(5, (int)json["runs"]!);
        Assert.Equal("paired-log-t", (string)json["method"]!);
        Assert.Equal(">=", (string)json["comparison"]!);
        Assert.Equal("met", (string)json["verdict"]!);
        Assert.False(json.ContainsKey("interval"));
    }

    [Fact]
    public void Serialize_RatioWithoutRuns_HasNoIntervalFields()
    {
        var ratio = new RatioResult("a / b", "a", "b", 2.0, Goal: 0.25, LowerIsBetter: true).WithRuns([2000], Slower);

        var json = JsonSerializer.SerializeToNode(ratio, BenchReport.JsonOptions)!.AsObject();

        Assert.Equal("<=", (string)json["comparison"]!);
        Assert.False((bool)json["goalMet"]!);
        foreach (var field in new[] { "estimate", "low", "high", "level", "runs", "method", "verdict" })
        {
            Assert.False(json.ContainsKey(field), field);
        }
    }

    [Fact]
    public void RoundTrip_ReportWithSamplesAndIntervals_KeepsEveryField()
    {
        var report = new BenchReport
        {
            Machine = new MachineInfo(2, "linux", ".NET 10", "cpu"),
            Settings = new BenchSettings(["transfer"], true, 5, 1, 0.5, 1024, false, "embedded"),
        };
        report.Results.Add(new ScenarioResult { Scenario = "a", Parameters = new() { Label = "x" }, BytesPerSecond = Summary.OfRuns(Faster) });
        report.Ratios.Add(new RatioResult("a / b", "a", "b", 2.0, Goal: 2.05).WithRuns(Faster, Slower));

        var text = JsonSerializer.Serialize(report, BenchReport.JsonOptions);
        var back = JsonSerializer.Deserialize<BenchReport>(text, BenchReport.JsonOptions)!;

        Assert.Equal(Faster, back.Results[0].BytesPerSecond!.Samples);
        Assert.Equal(2000, back.Results[0].BytesPerSecond!.Median);
        var ratio = back.Ratios[0];
        Assert.Equal(report.Ratios[0].Interval, ratio.Interval);
        Assert.Equal("inconclusive", ratio.Verdict);
        Assert.Equal(text, JsonSerializer.Serialize(back, BenchReport.JsonOptions));
    }

    [Fact]
    public void OfRuns_Values_KeptInRunOrderBesideTheMedian()
    {
        var summary = Summary.OfRuns([3, 1, 2])!;

        Assert.Equal([3.0, 1.0, 2.0], summary.Samples);
        Assert.Equal(new Summary(2, 1, 3), summary with { Samples = null });
        Assert.Null(Summary.Of([3, 1, 2])!.Samples);
    }

    [Fact]
    public void ConsoleReport_RatioWithInterval_PrintsEstimateBoundsAndVerdict()
    {
        var report = new BenchReport
        {
            Machine = new MachineInfo(2, "linux", ".NET 10", "cpu"),
            Settings = new BenchSettings(["transfer"], true, 5, 1, 0.5, 1024, false, "embedded"),
        };
        report.Ratios.Add(new RatioResult("fast / slow", "a", "b", 2.0, Goal: 1.5).WithRuns(Faster, Slower));
        report.Ratios.Add(new RatioResult("unsure", "a", "b", 2.0, Goal: 2.0).WithRuns(Faster, Slower));
        report.Ratios.Add(new RatioResult("cost", "a", "b", 0.2, Goal: 0.25, LowerIsBetter: true));

        var lines = ConsoleReport.Render(report).Split('\n');

        var interval = RatioStatistics.Paired(Faster, Slower);
        var fast = Assert.Single(lines, l => l.StartsWith("fast / slow", StringComparison.Ordinal));
        Assert.Contains($"{interval.Estimate:0.000}×", fast, StringComparison.Ordinal);
        Assert.Contains($"[{interval.Low:0.000}–{interval.High:0.000}]", fast, StringComparison.Ordinal);
        Assert.EndsWith("≥ 1.5× met", fast.TrimEnd(), StringComparison.Ordinal);
        Assert.EndsWith("≥ 2.0× inconclusive", Assert.Single(lines, l => l.StartsWith("unsure", StringComparison.Ordinal)).TrimEnd(), StringComparison.Ordinal);
        Assert.EndsWith("≤ 0.25× met (no interval)", Assert.Single(lines, l => l.StartsWith("cost", StringComparison.Ordinal)).TrimEnd(), StringComparison.Ordinal);
    }
}
