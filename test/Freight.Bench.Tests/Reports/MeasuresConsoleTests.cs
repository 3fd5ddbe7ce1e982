using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Reports;

/// <summary>The console says which cost measures the machine offered, and shows instructions per byte where perf counted them.</summary>
public sealed class MeasuresConsoleTests
{
    [Fact]
    public void Render_InstructionsCounted_AddsTheColumnAndSaysYes()
    {
        var text = ConsoleReport.Render(Report(instructionsPerByte: 1.234, new MeasuresOffered(true, true, null)));

        Assert.Contains("srv instr/B", text, StringComparison.Ordinal);
        Assert.Matches(@"download/freight\s+http h1 memory 64K .* 1\.23\n", text);
        Assert.Contains("measures: CPU time per side (every row); server instructions per byte: yes (perf stat)", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Render_InstructionsNotCounted_NoColumnAndSaysWhyNot()
    {
        var text = ConsoleReport.Render(Report(instructionsPerByte: null, new MeasuresOffered(true, false, "perf is not installed (scripts/install-peers.sh installs Debian's linux-perf)")));

        Assert.DoesNotContain("srv instr/B", text, StringComparison.Ordinal);
        Assert.Contains("server instructions per byte: no — perf is not installed", text, StringComparison.Ordinal);
    }

    [Fact]
    public void ReportMarkdown_RunWithMeasures_SaysThemInTheRunsTable()
    {
        var model = Freight.Bench.Reports.Output.ReportBuilder.Build([new CompareSource("run", Report(null, new MeasuresOffered(true, false, "perf stat: instructions <not supported> (no hardware counter here)")))], 1);

        var markdown = Freight.Bench.Reports.Output.MarkdownReportWriter.Render(model);

        Assert.Contains("| rows | headline rows (default) |", markdown, StringComparison.Ordinal);
        Assert.Equal("| cost measures | CPU time per side (every row); server instructions per byte: no — perf stat: instructions &lt;not supported&gt; (no hardware counter here) |", markdown.Split('\n').Single(l => l.StartsWith("| cost measures", StringComparison.Ordinal)));
    }

    [Fact]
    public void ReportMarkdown_FilteredRun_SaysTheFilterBesideItsRows()
    {
        var report = Report(null, new MeasuresOffered(true, false, "no perf"), filter: "download/freight,download/file");
        var model = Freight.Bench.Reports.Output.ReportBuilder.Build([new CompareSource("run", report)], 1);

        var markdown = Freight.Bench.Reports.Output.MarkdownReportWriter.Render(model);

        Assert.Contains("| rows | headline rows (default), --filter download/freight,download/file |", markdown, StringComparison.Ordinal);
    }

    private static BenchReport Report(double? instructionsPerByte, MeasuresOffered measures, string? filter = null) => new()
    {
        Machine = new MachineInfo(2, "linux", ".NET 10", "cpu"),
        Settings = new BenchSettings(["transfer"], Quick: false, Runs: 5, RunSeconds: 0.5, WarmupSeconds: 0.5, PayloadBytes: 20 << 20, CpuAffinity: false, Target: "embedded", Filter: filter),
        Measures = measures,
        Verified = true,
        Results =
        [
            new ScenarioResult
            {
                Scenario = "download/freight",
                Parameters = new ScenarioParameters { Label = "http h1 memory 64K" },
                Runs = 5,
                Verified = true,
                BytesPerSecond = Summary.OfRuns([2e9, 2e9, 2e9, 2e9, 2e9]),
                Server = new SideCost(0.4) { InstructionsPerByte = instructionsPerByte },
            },
        ],
    };
}
