using System.Text.Json;
using System.Text.Json.Nodes;
using Freight.Bench.Measure;
using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Results;
using Freight.Bench.Suites.Transfer;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Tests.Verdicts;

/// <summary>
/// The A/A control on synthetic rows with known answers: the flag set when the copy differs from its original beyond
/// the noise, unset when it does not; the fields in the JSON, the console and the report; and the goal check that
/// drives adaptive runs.
/// </summary>
public sealed class AaControlTests
{
    private const string Label = "http h1 memory 64K";

    // Pair-to-pair weather swings the rows by up to 2×; within a pair the copy is 1.00 × (1 ± 2 %) of the original.
    private static readonly double[] Original = [1000, 2000, 500, 1500, 800];
    private static readonly double[] SameAsOriginal = [1020, 1960, 505, 1485, 808];

    // The copy read 10 % faster in every pair: a slot bias that the run's intervals do not admit.
    private static readonly double[] BiasedCopy = [1100, 2200, 550, 1650, 880];

    [Fact]
    public void SuiteCheck_CopyWithinTheNoise_HoldsOneAndIsNotUnreliable()
    {
        var check = CheckOf(SameAsOriginal);

        Assert.NotNull(check.Control);
        Assert.True(check.Control.Interval!.Contains(1.0));
        Assert.False(check.Unreliable);
        Assert.Equal(Math.Sqrt(check.Control.High!.Value / check.Control.Low!.Value) - 1, check.NoiseFloor!.Value, 12);
        Assert.InRange(check.NoiseFloor!.Value, 0.001, 0.05);
    }

    [Fact]
    public void SuiteCheck_CopyBiasedInEveryPair_ExcludesOneAndIsUnreliable()
    {
        var check = CheckOf(BiasedCopy);

        Assert.Equal(1.1, check.Control!.Estimate!.Value, 9);
        Assert.False(check.Control.Interval!.Contains(1.0));
        Assert.True(check.Unreliable);
    }

    [Fact]
    public void SuiteCheck_OneRun_HasNoIntervalAndIsNotFlagged()
    {
        ScenarioResult[] rows = [Row("download/freight", [1000]), Row(AaControl.CopyId("download/freight"), [1100])];

        var check = SuiteCheck.Of("transfer", TransferRatios.Compute([], rows), AdaptiveStop.Off, 1, 0);

        Assert.NotNull(check.Control);
        Assert.Null(check.Control.Interval);
        Assert.False(check.Unreliable);
        Assert.Null(check.NoiseFloor);
        Assert.Contains("no interval", check.NoiseText(), StringComparison.Ordinal);
    }

    [Fact]
    public void TransferRatios_CopyFasterThanEveryDownload_IsNeverTheBestOtherDownload()
    {
        // Every other download measured (the goal needs them all), download/file the fastest of them.
        ScenarioResult[] rows =
        [
            Row("download/freight", Original),
            Row("download/file", [500, 1000, 250, 750, 400]),
            Row(AaControl.CopyId("download/freight"), [9000, 9000, 9000, 9000, 9000]),
            .. TransferRatios.OtherDownloads.Where(id => id != "download/file").Select(id => Row(id, [100, 100, 100, 100, 100])),
        ];

        var best = TransferRatios.Compute([], rows).Single(r => r.Name == "download-freight / best other download");

        Assert.Equal("download/file (http h1 memory 64K)", best.Denominator);
        Assert.Equal(2.0, best.Estimate!.Value, 9);
    }

    [Fact]
    public void TransferRatios_AnOtherDownloadNotMeasured_BothBestOtherDownloadGoalsAreNotMeasured()
    {
        // As after --filter download/freight,download/file: the best of the two is not the best other download.
        ScenarioResult[] rows =
        [
            Row("download/freight", Original),
            Row("download/file", [500, 1000, 250, 750, 400]),
        ];

        var ratios = TransferRatios.Compute([], rows).Where(r => r.Name.EndsWith("download-freight / best other download", StringComparison.Ordinal)).ToList();

        Assert.Equal(2, ratios.Count);
        Assert.All(ratios, ratio =>
        {
            Assert.Null(ratio.Value);
            Assert.NotNull(ratio.Goal);
            Assert.Contains("not all measured", ratio.Denominator, StringComparison.Ordinal);
        });
        Assert.True(TransferRatios.OtherDownloads.Count >= 6);
        Assert.DoesNotContain("download/freight", TransferRatios.OtherDownloads);
    }

    [Fact]
    public void Serialize_ReportWithAFailedControl_HasTheSuiteFieldsAndTheRunFlag()
    {
        var report = Report(CheckOf(BiasedCopy));

        var json = JsonSerializer.SerializeToNode(report, BenchReport.JsonOptions)!.AsObject();

        Assert.True((bool)json["unreliable"]!);
        var suite = json["suiteChecks"]!.AsArray().Single()!.AsObject();
        Assert.Equal("transfer", (string)suite["suite"]!);
        Assert.True((bool)suite["unreliable"]!);
        Assert.Equal("conclusive", (string)suite["stop"]!);
        Assert.Equal(5, (int)suite["passes"]!);
        Assert.Equal(60, (double)suite["maxSeconds"]!);
        // The copy is exactly 1.1× in every pair: a zero-width interval, no noise, and still not 1.0.
        Assert.Equal(0, (double)suite["noiseFloor"]!, 12);
        var control = suite["control"]!.AsObject();
        Assert.Equal("download/freight#a", (string)control["numerator"]!);
        Assert.Equal("download/freight", (string)control["denominator"]!);
        Assert.True((double)control["low"]! > 1.0);
    }

    [Fact]
    public void Deserialize_ReportWithControls_KeepsTheFlagAndTheInterval()
    {
        var report = Report(CheckOf(BiasedCopy));

        var back = JsonSerializer.Deserialize<BenchReport>(JsonSerializer.Serialize(report, BenchReport.JsonOptions), BenchReport.JsonOptions)!;

        var check = Assert.Single(back.SuiteChecks);
        Assert.True(back.Unreliable);
        Assert.True(check.Unreliable);
        Assert.Equal(report.SuiteChecks[0].Control!.Low, check.Control!.Low);
    }

    [Fact]
    public void ConsoleReport_FailedControl_SaysTheNoiseFloorAndUnreliable()
    {
        var console = ConsoleReport.Render(Report(CheckOf(BiasedCopy)));

        Assert.Contains("transfer: noise floor ±", console, StringComparison.Ordinal);
        Assert.Contains("UNRELIABLE: the interval excludes 1.0", console, StringComparison.Ordinal);
        Assert.Contains(SuiteCheck.UnreliableText, console, StringComparison.Ordinal);
        Assert.Contains("transfer: every goal conclusive after 5 runs", console, StringComparison.Ordinal);
    }

    [Fact]
    public void ConsoleReport_SoundControl_HoldsOneAndNoRunFlag()
    {
        var console = ConsoleReport.Render(Report(CheckOf(SameAsOriginal)));

        Assert.Contains("holds 1.0", console, StringComparison.Ordinal);
        Assert.DoesNotContain("UNRELIABLE", console, StringComparison.Ordinal);
    }

    [Fact]
    public void ReportBuilder_FailedControl_NoiseSectionAndRunsRowSayUnreliable()
    {
        var model = ReportBuilder.Build([new CompareSource("run.json", Report(CheckOf(BiasedCopy)))]);

        var noise = model.Sections.Single(s => s.Title == "noise floor");
        Assert.StartsWith(SuiteCheck.UnreliableText, noise.Note, StringComparison.Ordinal);
        var table = Assert.Single(noise.Figures).Table;
        var row = Assert.Single(table.Rows);
        Assert.Equal("download/freight#a / download/freight", row[1].Text);
        Assert.Equal("NO: UNRELIABLE", row[5].Text);
        Assert.Equal("conclusive", row[7].Text);
        var runs = model.Tables.Single(t => t.Id == "runs");
        Assert.Contains(runs.Rows, r => r[0].Text == "A/A controls" && r[1].Text.StartsWith("UNRELIABLE", StringComparison.Ordinal));
        var markdown = MarkdownReportWriter.Render(model);
        Assert.Contains("## noise floor", markdown, StringComparison.Ordinal);
        Assert.Contains("NO: UNRELIABLE", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public void ReportBuilder_ResultWithoutControls_HasNoNoiseSection()
    {
        var report = Report(CheckOf(SameAsOriginal));
        report.SuiteChecks.Clear();

        var model = ReportBuilder.Build([new CompareSource("run.json", report)]);

        Assert.DoesNotContain(model.Sections, s => s.Title == "noise floor");
        Assert.DoesNotContain(model.Tables.Single(t => t.Id == "runs").Rows, r => r[0].Text == "A/A controls");
    }

    [Fact]
    public void GoalCheck_GoalInconclusive_NotConclusiveAndGoalRowsWithTheControlPair()
    {
        // multipart-freight / multipart-reader is 1.5× ± 10 % against a goal of 1.5×: inconclusive.
        TransferScenario[] scenarios =
        [
            new("upload/multipart-freight", TransferDirection.Upload),
            new("upload/multipart-reader", TransferDirection.Upload),
            new("upload/iformfile", TransferDirection.Upload),
            new("download/freight", TransferDirection.Download),
            new("download/freight", TransferDirection.Download, AaCopy: true),
        ];
        ScenarioResult[] rows =
        [
            Row("upload/multipart-freight", [1650, 1350, 1600, 1400, 1500]),
            Row("upload/multipart-reader", [1000, 1000, 1000, 1000, 1000]),
            Row("upload/iformfile", [100, 100, 100, 100, 100]),
            Row("download/freight", Original),
            Row("download/freight#a", SameAsOriginal),
        ];

        var check = GoalCheck<TransferScenario>.Of(scenarios, rows, TransferRatios.Compute(scenarios, rows));

        Assert.False(check.Conclusive);
        Assert.Contains(scenarios[0], check.GoalRows);
        Assert.Contains(scenarios[1], check.GoalRows);
        Assert.Contains(scenarios[3], check.GoalRows);
        Assert.Contains(scenarios[4], check.GoalRows);

        // iformfile is in ratios without a goal only: no run is added to it.
        Assert.DoesNotContain(scenarios[2], check.GoalRows);
    }

    [Fact]
    public void GoalCheck_EveryGoalMetOrMissed_Conclusive()
    {
        TransferScenario[] scenarios = [new("upload/multipart-freight", TransferDirection.Upload), new("upload/multipart-reader", TransferDirection.Upload)];
        ScenarioResult[] rows =
        [
            Row("upload/multipart-freight", [2000, 4000, 1000, 3000, 1600]),
            Row("upload/multipart-reader", [1000, 2000, 500, 1500, 800]),
        ];

        var ratios = TransferRatios.Compute(scenarios, rows).ToList();
        var check = GoalCheck<TransferScenario>.Of(scenarios, rows, ratios);

        Assert.True(check.Conclusive);
        var goal = ratios.Single(r => r.Name == "multipart-freight / multipart-reader").WithStop(AdaptiveStop.Conclusive);
        Assert.Equal("met", goal.Verdict);
        Assert.Equal("conclusive", goal.Stop);
        Assert.Equal("conclusive after 5 runs", goal.StopText);
    }

    [Theory]
    [InlineData(AdaptiveStop.TimeCap, "time-cap", "cap reached, inconclusive after 5 runs")]
    [InlineData(AdaptiveStop.Ceiling, "run-ceiling", "run ceiling reached, inconclusive after 5 runs")]
    [InlineData(AdaptiveStop.Off, "minimum-runs", "inconclusive after 5 runs, none added")]
    public void WithStop_InconclusiveGoal_SaysWhyItsRunsEnded(AdaptiveStop stop, string field, string text)
    {
        var goal = new RatioResult("a / b", "a", "b", 1.5, Goal: 1.5).WithRuns([1650, 1350, 1600, 1400, 1500], [1000, 1000, 1000, 1000, 1000]).WithStop(stop);

        Assert.Equal("inconclusive", goal.Verdict);
        Assert.Equal(field, goal.Stop);
        Assert.Equal(text, goal.StopText);
        Assert.Equal(field, (string)JsonSerializer.SerializeToNode(goal, BenchReport.JsonOptions)!["stop"]!);
    }

    [Fact]
    public void WithStop_RunsAdded_GoalDrawnAtTheStricterLevelWiderAndInconclusive()
    {
        // 1.3× ± ~7 % against a goal of 1.2×: met at 95 % over 7 pairs, not at 99.5 %.
        double[] a = [1400, 1200, 1350, 1250, 1300, 1420, 1180];
        double[] b = [1000, 1000, 1000, 1000, 1000, 1000, 1000];
        var goal = new RatioResult("a / b", "a", "b", 1.3, Goal: 1.2).WithRuns(a, b);
        Assert.Equal("met", goal.Verdict);

        var judged = goal.WithStop(AdaptiveStop.TimeCap, runsAdded: true);

        Assert.Equal(0.995, judged.Level);
        Assert.Equal(RatioStatistics.Paired(a, b, 0.995).Low, judged.Low);
        Assert.True(judged.Low < goal.Low && judged.High > goal.High);
        Assert.Equal("inconclusive", judged.Verdict);
        Assert.Equal("time-cap", judged.Stop);
        Assert.Equal(0.995, (double)JsonSerializer.SerializeToNode(judged, BenchReport.JsonOptions)!["level"]!);
        Assert.Contains("at 99.5%", ConsoleReport.Render(ReportWith(judged)), StringComparison.Ordinal);
    }

    [Fact]
    public void WithStop_RunsAddedToARatioWithoutGoal_KeepsItsNinetyFivePercentInterval()
    {
        var ratio = new RatioResult("a / b", "a", "b", 2.0).WithRuns(Original, SameAsOriginal);

        Assert.Equal(0.95, ratio.WithStop(AdaptiveStop.Conclusive, runsAdded: true).Level);
    }

    [Fact]
    public void WithStop_RatioWithoutInterval_HasNoStop()
    {
        var ratio = new RatioResult("a / b", "a", "b", 1.5, Goal: 1.5).WithStop(AdaptiveStop.TimeCap);

        Assert.Null(ratio.Stop);
        Assert.False(JsonSerializer.SerializeToNode(ratio, BenchReport.JsonOptions)!.AsObject().ContainsKey("stop"));
    }

    private static BenchReport ReportWith(RatioResult ratio)
    {
        var report = Report(CheckOf(SameAsOriginal));
        report.Ratios.Add(ratio);
        return report;
    }

    private static SuiteCheck CheckOf(double[] copy)
    {
        ScenarioResult[] rows = [Row("download/freight", Original), Row(AaControl.CopyId("download/freight"), copy)];
        return SuiteCheck.Of("transfer", TransferRatios.Compute([], rows), AdaptiveStop.Conclusive, 5, 60);
    }

    private static BenchReport Report(SuiteCheck check)
    {
        var report = new BenchReport
        {
            Machine = new MachineInfo(2, "linux", ".NET 10", "cpu"),
            Settings = new BenchSettings(["transfer"], false, 5, 1, 0.5, 1024, false, "embedded"),
            Verified = true,
        };
        report.SuiteChecks.Add(check);
        return report;
    }

    private static ScenarioResult Row(string id, double[] runs) => new()
    {
        Scenario = id,
        Parameters = new ScenarioParameters { Label = Label },
        Verified = true,
        Runs = runs.Length,
        BytesPerSecond = Summary.OfRuns(runs),
    };
}
