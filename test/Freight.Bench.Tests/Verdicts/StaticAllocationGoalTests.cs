using System.Text.Json;
using System.Text.Json.Nodes;
using Freight.Bench.Measure;
using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Results;
using Freight.Bench.Suites.Static;
using Freight.Lab.Metrics;

namespace Freight.Bench.Tests.Verdicts;

/// <summary>
/// The static suite's allocation goals: bytes the server allocated per response, freight's over staticfiles', one figure
/// per round from that round's server window, paired by round, with the cost goals' interval and "≤" verdict. The rounds
/// are synthetic (fixed responses and allocated bytes), so each interval and verdict is known exactly.
/// </summary>
public sealed class StaticAllocationGoalTests
{
    private const string Goal4K = "freight / staticfiles bytes allocated per response, 4 KiB, 32 conns";

    private static readonly DateTimeOffset Start = new(2026, 11, 26, 4, 0, 0, TimeSpan.Zero);

    // staticfiles' bytes per response in each of 3 rounds, apart by a factor of 1.5 (a round with more GCs' worth of
    // lazily grown buffers, say): pairing takes it out.
    private static readonly double[] Stock = [20_000, 30_000, 24_000];

    [Fact]
    public void Summarize_RoundsWithServerWindows_EachRoundsBytesPerResponseInRoundOrder()
    {
        var row = StaticSuiteRunner.Summarize(new StaticScenario(StaticSuite.Freight, 4096, 32), Rounds([4_000, 6_000, 5_000], [10_000, 20_000, 40_000]), []);

        Assert.Equal([4_000.0, 6_000.0, 5_000.0], row.Server!.AllocatedBytesPerTransferRuns!);
        // The whole run's figure stays what it was: every byte over every response.
        Assert.Equal(((4_000.0 * 10_000) + (6_000.0 * 20_000) + (5_000.0 * 40_000)) / 70_000, row.Server.AllocatedBytesPerTransfer!.Value, 9);
    }

    [Fact]
    public void Summarize_RoundsWithServerWindows_JsonCarriesThePerRoundFigureBesideTheOldFields()
    {
        var row = StaticSuiteRunner.Summarize(new StaticScenario(StaticSuite.Freight, 4096, 32), Rounds([4_000, 6_000, 5_000], [10_000, 20_000, 40_000]), []);

        var server = JsonSerializer.SerializeToNode(row, BenchReport.JsonOptions)!["server"]!.AsObject();

        Assert.Equal([4_000.0, 6_000.0, 5_000.0], server["allocatedBytesPerTransferRuns"]!.AsArray().Select(v => (double)v!));
        Assert.True(server.ContainsKey("allocatedBytesPerTransfer"));
        Assert.True(server.ContainsKey("cpuSecondsPerResponse"));
    }

    [Fact]
    public void Summarize_NginxRounds_NoAllocationFigures()
    {
        // nginx reports CPU and working set from /proc, no allocations: its rows have neither figure.
        var runs = new StaticSuiteRunner.ScenarioRuns();
        runs.Runs.Add(new StaticSuiteRunner.StaticRun(9_000, 9_000 * 4096.0, 9_000, null, null, new Dictionary<int, long> { [200] = 9_000 }, 0, 0, 0, 0, null)
        {
            PeerWindow = (new ProcessStatSnapshot(1, 1, 1.0, 1_000_000, Start), new ProcessStatSnapshot(1, 1, 1.5, 1_000_000, Start.AddSeconds(1))),
        });

        var row = StaticSuiteRunner.Summarize(new StaticScenario(StaticSuite.Nginx, 4096, 32), runs, []);

        Assert.Null(row.Server!.AllocatedBytesPerTransfer);
        Assert.Null(row.Server.AllocatedBytesPerTransferRuns);
    }

    [Fact]
    public void StaticRatios_FreightAllocatesAFifthPerResponseInEveryRound_GoalMetWithTheExactInterval()
    {
        var ratio = Goal(Times(Stock, 0.2), Stock);

        Assert.Equal(0.2, ratio.Estimate!.Value, 12);
        Assert.Equal(0.2, ratio.Low!.Value, 12);
        Assert.Equal(0.2, ratio.High!.Value, 12);
        Assert.Equal(3, ratio.Runs);
        Assert.Equal("paired-log-t", ratio.Method);
        Assert.Equal("<=", ratio.Comparison);
        Assert.Equal(1.0, ratio.Goal);
        Assert.Equal("×", ratio.Unit);
        Assert.Equal("static/freight server bytes allocated/response", ratio.Numerator);
        Assert.Equal("static/staticfiles server bytes allocated/response", ratio.Denominator);
        Assert.Equal("met", ratio.Verdict);
    }

    [Fact]
    public void StaticRatios_FreightAllocatesMorePerResponseInEveryRound_GoalMissed()
    {
        var ratio = Goal(Times(Stock, 1.1), Stock);

        Assert.Equal(1.1, ratio.Low!.Value, 12);
        Assert.Equal("missed", ratio.Verdict);
    }

    [Fact]
    public void StaticRatios_FreightStraddlingStaticFiles_GoalInconclusiveWithTheTInterval()
    {
        // Per-round ratios 0.9, 1.1, 1.0: log ratios ln 0.9, ln 1.1, 0; the t interval on 2 degrees of freedom.
        var ratio = Goal([18_000, 33_000, 24_000], Stock);

        double[] logs = [Math.Log(0.9), Math.Log(1.1), 0];
        var mean = logs.Average();
        var s = Math.Sqrt(logs.Sum(l => (l - mean) * (l - mean)) / 2);
        var half = Freight.Bench.Verdicts.StudentT.Quantile(0.95, 2) * s / Math.Sqrt(3);
        Assert.Equal(Math.Exp(mean), ratio.Estimate!.Value, 9);
        Assert.Equal(Math.Exp(mean - half), ratio.Low!.Value, 6);
        Assert.Equal(Math.Exp(mean + half), ratio.High!.Value, 6);
        Assert.Equal("inconclusive", ratio.Verdict);
        Assert.Equal(RatioResult.StopMinimumRuns, ratio.WithStop(AdaptiveStop.Off).Stop);
    }

    [Fact]
    public void StaticRatios_FreightFasterAtTheSameCostPerResponse_GoalIsOnePerResponseNotTheRatesRatio()
    {
        // freight serves twice the responses a round at the same bytes per response: its allocation rate is twice
        // staticfiles', the figure the goal compared before; per response the two are equal, and "≤ 1.0×" is met.
        var freight = Summarize(StaticSuite.Freight, Rounds(Stock, [40_000, 40_000, 40_000]));
        var stock = Summarize(StaticSuite.StaticFiles, Rounds(Stock, [20_000, 20_000, 20_000]));

        var ratio = StaticRatios.Compute([freight, stock]).Single(r => r.Name == Goal4K);

        Assert.Equal(2.0, freight.Counters!.AllocationBytesPerSecond!.Value / stock.Counters!.AllocationBytesPerSecond!.Value, 9);
        Assert.Equal(1.0, ratio.Value!.Value, 12);
        Assert.Equal(1.0, ratio.High!.Value, 12);
        Assert.Equal("met", ratio.Verdict);
    }

    [Fact]
    public void StaticRatios_OneRound_GoalHasTheTotalsRatioButNoInterval()
    {
        // --quick's one round: the whole run's figures compare, as the other goals without runs do.
        var ratio = Goal([5_000], [20_000]);

        Assert.Equal(0.25, ratio.Value!.Value, 12);
        Assert.True(ratio.GoalMet);
        Assert.Null(ratio.Interval);
        Assert.Null(ratio.Verdict);
    }

    [Fact]
    public void StaticRatios_EverySize_AllocationGoalPerResponseAndNoAllocationRateGoal()
    {
        var ratios = StaticRatios.Compute([]).ToList();

        Assert.Equal(
            [Goal4K, "freight / staticfiles bytes allocated per response, 16 KiB, 32 conns", "freight / staticfiles bytes allocated per response, 128 KiB, 32 conns", "freight / staticfiles bytes allocated per response, 1 MiB, 32 conns"],
            ratios.Where(r => r.Name.Contains("allocat", StringComparison.Ordinal)).Select(r => r.Name));
        Assert.All(ratios.Where(r => r.Name.Contains("allocat", StringComparison.Ordinal)), r => Assert.True(r.LowerIsBetter && r.Goal == 1.0, r.Name));
    }

    [Fact]
    public void StaticRatios_GoalWithRuns_RemembersItsRowsForAddedRuns()
    {
        // The adaptive runs find a goal's rows through its sides, as for the speed goals (the static suite adds none yet).
        var freight = Summarize(StaticSuite.Freight, Rounds(Times(Stock, 0.2), [20_000, 20_000, 20_000]));
        var stock = Summarize(StaticSuite.StaticFiles, Rounds(Stock, [20_000, 20_000, 20_000]));

        var ratio = StaticRatios.Compute([freight, stock]).Single(r => r.Name == Goal4K);

        Assert.Same(freight, ratio.Sides!.Value.Numerator);
        Assert.Same(stock, ratio.Sides!.Value.Denominator);
        Assert.True(GoalCheck<string>.Of(["freight", "stock"], [freight, stock], [ratio]).Conclusive);
    }

    [Fact]
    public void ConsoleAndReport_AllocationGoal_ShowItsIntervalVerdictAndEachRowsFigure()
    {
        var freight = Summarize(StaticSuite.Freight, Rounds(Times(Stock, 0.2), [20_000, 20_000, 20_000]));
        var stock = Summarize(StaticSuite.StaticFiles, Rounds(Stock, [20_000, 20_000, 20_000]));
        var report = new BenchReport
        {
            Machine = new MachineInfo(2, "linux", ".NET 10", "cpu"),
            Settings = new BenchSettings(["static"], false, 3, 1, 1, 4096, false, "embedded"),
        };
        report.Results.AddRange([freight, stock]);
        report.Ratios.AddRange(StaticRatios.Compute(report.Results).Select(r => r.WithStop(AdaptiveStop.Off)));

        var lines = ConsoleReport.Render(report).Split('\n');

        var goal = Assert.Single(lines, l => l.StartsWith(Goal4K, StringComparison.Ordinal));
        Assert.Contains("0.200×", goal, StringComparison.Ordinal);
        Assert.Contains("[0.200–0.200]", goal, StringComparison.Ordinal);
        Assert.Contains("≤ 1.0× met", goal, StringComparison.Ordinal);
        Assert.Contains("conclusive after 3 runs", goal, StringComparison.Ordinal);
        var header = Assert.Single(lines, l => l.StartsWith("scenario", StringComparison.Ordinal) && l.Contains("srv alloc MiB/s", StringComparison.Ordinal));
        Assert.Contains("srv alloc KiB/resp", header, StringComparison.Ordinal);
        // staticfiles: (20,000 + 30,000 + 24,000) × 20,000 bytes over 60,000 responses = 24,666.7 B = 24.09 KiB a response.
        Assert.Contains(" 24.09 ", Assert.Single(lines, l => l.StartsWith("static/staticfiles ", StringComparison.Ordinal)), StringComparison.Ordinal);

        var markdown = MarkdownReportWriter.Render(ReportBuilder.Build([new CompareSource("run.json", report)]));
        var row = Assert.Single(markdown.Split('\n'), l => l.Contains(Goal4K, StringComparison.Ordinal));
        Assert.Contains("0.200", row, StringComparison.Ordinal);
        Assert.Contains("met", row, StringComparison.Ordinal);

        var page = VerdictsPage.Render([new VerdictsPage.Run("run.json", report)]);
        Assert.Contains($"| {Goal4K} ≤ 1.0× | met | 0.200× | 0.200–0.200× | 3 | [run.json](run.json) |", page, StringComparison.Ordinal);
    }

    private static RatioResult Goal(double[] freightPerResponse, double[] stockPerResponse)
    {
        var responses = freightPerResponse.Select(_ => 20_000L).ToArray();
        var freight = Summarize(StaticSuite.Freight, Rounds(freightPerResponse, responses));
        var stock = Summarize(StaticSuite.StaticFiles, Rounds(stockPerResponse, responses));
        return StaticRatios.Compute([freight, stock]).Single(r => r.Name == Goal4K);
    }

    private static ScenarioResult Summarize(string id, StaticSuiteRunner.ScenarioRuns runs) =>
        StaticSuiteRunner.Summarize(new StaticScenario(id, 4096, StaticSuite.GoalConnections), runs, []);

    private static double[] Times(double[] values, double factor) => [.. values.Select(v => v * factor)];

    /// <summary>One 1-second round per figure: <paramref name="responses"/>[i] responses, <paramref name="bytesPerResponse"/>[i] allocated for each.</summary>
    private static StaticSuiteRunner.ScenarioRuns Rounds(double[] bytesPerResponse, long[] responses)
    {
        var runs = new StaticSuiteRunner.ScenarioRuns();
        var allocated = 1_000_000_000L;
        for (var i = 0; i < bytesPerResponse.Length; i++)
        {
            var startedAt = Start.AddSeconds(10 * i);
            var after = allocated + (long)Math.Round(bytesPerResponse[i] * responses[i]);
            runs.Runs.Add(new StaticSuiteRunner.StaticRun(responses[i], responses[i] * 4096.0, responses[i], null, null,
                new Dictionary<int, long> { [200] = responses[i] }, 0, 0, 0, 0,
                new MeasuredWindow(Snapshot(10.0 + i, allocated), Snapshot(10.5 + i, after), startedAt, startedAt.AddSeconds(1)))
            {
                StartedAt = startedAt,
            });
            allocated = after + 12_345;
        }

        return runs;
    }

    private static RuntimeSnapshot Snapshot(double cpu, long allocated) => new(cpu, allocated, 1, 0, 0, 50_000_000, 100_000_000, 8, 0, 0, 20, 0);
}
