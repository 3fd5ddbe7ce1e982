using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// The verdicts page (docs/results/README.md's section): `freight report RUNS… --verdicts FILE` on two small fixture
/// runs, each goal's verdict from the newest run that measured it.
/// </summary>
public sealed class VerdictsPageTests
{
    private static readonly string Fixtures = Path.Combine(AppContext.BaseDirectory, "Reports", "Fixtures");

    [Fact]
    public async Task ReportVerdicts_TwoRuns_EachGoalFromTheNewestRunThatMeasuredIt()
    {
        var section = await RenderAsync();

        var rows = section.Split('\n').Where(l => l.StartsWith("| ", StringComparison.Ordinal)).ToList();
        // files/put's ratio carries a caveat (a client-bound goal): beside its verdict, its pipe escaped.
        Assert.Equal(
            string.Join('\n',
            [
                "| goal | verdict | estimate | 95 % interval | runs | from |",
                "| files/get / nginx-get, 1 GiB ≥ 0.85× | met | 0.931× | 0.881–0.984× | 5 | [verdicts-new.json](verdicts-new.json) |",
                "| server CPU s/GiB: files/put / nginx-put, 1 GiB ≤ 1.0× | MISSED | 1.874× | 1.702–2.063× | 5 | [verdicts-new.json](verdicts-new.json) |",
                "| files/put / nginx-put, 1 GiB ≥ 1.0× | inconclusive (client-bound: the client held its core \\| a pipe) | 0.969× | 0.902–1.041× | 5 | [verdicts-new.json](verdicts-new.json) |",
                "| freight / staticfiles bytes allocated per response, 4 KiB, 32 conns ≤ 1.0× | met | 0.214× | 0.199–0.231× | 3 | [verdicts-new.json](verdicts-new.json) |",
                "| upload/tus / peer/tus-node, 16 MiB chunks, 1 GiB ≥ 1.5× | met (no interval) | 1.800× |  |  | [verdicts-old.json](verdicts-old.json) |",
                "| https / http download ≥ 0.7× | not measured | n/a |  |  | [verdicts-new.json](verdicts-new.json) |",
                "| freight / staticfiles allocation rate, 1 MiB, 32 conns ≤ 1.0× | MISSED (no interval) | 1.099× |  |  | [verdicts-old.json](verdicts-old.json) |",
            ]),
            string.Join('\n', rows));
    }

    [Fact]
    public async Task ReportVerdicts_NewestRunListsAGoalWithoutAFigure_TakesItFromTheOlderRunThatMeasuredIt()
    {
        // verdicts-new.json lists the tus goal as a run that skipped its rows does (a goal, no value, no interval);
        // verdicts-old.json measured it.
        var section = await RenderAsync();

        var tus = Assert.Single(section.Split('\n'), l => l.StartsWith("| upload/tus / peer/tus-node", StringComparison.Ordinal));
        Assert.Equal("| upload/tus / peer/tus-node, 16 MiB chunks, 1 GiB ≥ 1.5× | met (no interval) | 1.800× |  |  | [verdicts-old.json](verdicts-old.json) |", tus);
        Assert.Single(section.Split('\n'), l => l.Contains("not measured", StringComparison.Ordinal) && l.StartsWith("| https / http download", StringComparison.Ordinal));
    }

    [Fact]
    public async Task ReportVerdicts_GoalRenamedSinceAnOlderRun_OldNameLeftOffOnceARunStatesTheNewOne()
    {
        // verdicts-old.json has the static suite's allocation goals under their old name (the whole run's allocation
        // rate, no interval); verdicts-new.json states the 4 KiB one per response, with its interval. The old 4 KiB
        // figure measured something else: only the new goal speaks for it. The old 1 MiB goal has no successor yet.
        var section = await RenderAsync();

        Assert.DoesNotContain("allocation rate, 4 KiB", section, StringComparison.Ordinal);
        Assert.Single(section.Split('\n'), l => l.StartsWith("| freight / staticfiles bytes allocated per response, 4 KiB, 32 conns ≤ 1.0× | met | 0.214× | 0.199–0.231× | 3 |", StringComparison.Ordinal));
        Assert.Single(section.Split('\n'), l => l.StartsWith("| freight / staticfiles allocation rate, 1 MiB, 32 conns ≤ 1.0× | MISSED (no interval) |", StringComparison.Ordinal));
        Assert.Contains("Cost goals (server CPU s/GiB, bytes allocated per response) are \"≤\"", section, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ReportVerdicts_Runs_SayTheirScopeAndTheMeasuresTheMachineOffered()
    {
        var section = await RenderAsync();

        Assert.Contains("- [verdicts-new.json](verdicts-new.json): 2026-11-25 01:30 UTC, suites files, default (headline rows), 5 runs; 2 CPUs, AMD EPYC; measures: CPU time per side (every row); server instructions per byte: no — perf stat: instructions <not supported>", section, StringComparison.Ordinal);
        Assert.Contains("- [verdicts-old.json](verdicts-old.json): 2026-11-21 10:00 UTC, suites files, tus, every row (before the headline default), 5 runs; 2 CPUs, AMD EPYC; measures: CPU time per side (instructions not recorded", section, StringComparison.Ordinal);
        Assert.DoesNotContain("no goal", section, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ReportVerdicts_PageWithASection_RewritesOnlyTheSection()
    {
        var directory = Directory.CreateTempSubdirectory("freight-verdicts-");
        try
        {
            var page = Path.Combine(directory.FullName, "README.md");
            await File.WriteAllTextAsync(page, $"# Measured results\n\nbefore\n\n{VerdictsPage.Begin}\nstale verdicts\n{VerdictsPage.End}\n\nafter\n");

            var (exit, _, error) = await RunAsync(page);

            Assert.True(exit == 0, error);
            var written = await File.ReadAllTextAsync(page);
            Assert.StartsWith($"# Measured results\n\nbefore\n\n{VerdictsPage.Begin}\n## Verdicts\n", written, StringComparison.Ordinal);
            Assert.EndsWith($"{VerdictsPage.End}\n\nafter\n", written, StringComparison.Ordinal);
            Assert.DoesNotContain("stale verdicts", written, StringComparison.Ordinal);

            // The links are relative to the page: the fixtures are elsewhere.
            Assert.Contains($"]({Path.GetRelativePath(directory.FullName, Path.Combine(Fixtures, "verdicts-new.json"))})", written, StringComparison.Ordinal);

            // Run again: the page is the same (nothing appended twice).
            await RunAsync(page);
            Assert.Equal(written, await File.ReadAllTextAsync(page));
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }

    [Fact]
    public async Task ReportVerdicts_PageInsideTheClone_LinksHowToDocsBenchRelativeToThePage()
    {
        // Not docs/results/: a link fixed to ../bench.md pointed nowhere from any other folder.
        var directory = ReportFixture.ArtifactsDirectory("verdicts-link");
        var page = Path.Combine(directory, "README.md");
        File.Delete(page);

        var (exit, _, error) = await RunAsync(page);

        Assert.True(exit == 0, error);
        var link = Path.GetRelativePath(directory, Path.Combine(ReportFixture.RepositoryRoot(), "docs", "bench.md")).Replace('\\', '/');
        Assert.Contains($"([how]({link}#intervals-and-verdicts))", await File.ReadAllTextAsync(page), StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(directory, link)), link);
        Assert.Contains("\n### Intervals and verdicts\n", await File.ReadAllTextAsync(Path.Combine(directory, link)), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ReportVerdicts_PageOutsideAClone_NamesHowAsTextNotABrokenLink()
    {
        var directory = Directory.CreateTempSubdirectory("freight-verdicts-");
        try
        {
            var page = Path.Combine(directory.FullName, "verdicts.md");

            var (exit, _, error) = await RunAsync(page);

            Assert.True(exit == 0, error);
            var written = await File.ReadAllTextAsync(page);
            Assert.Contains("inconclusive when it straddles the goal (how: docs/bench.md, Intervals and verdicts).", written, StringComparison.Ordinal);
            Assert.DoesNotContain("bench.md#", written, StringComparison.Ordinal);
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }

    [Fact]
    public void Rewrite_PageWithoutASection_AppendsIt()
    {
        var page = VerdictsPage.Rewrite("# Measured results\n\ntext\n", $"{VerdictsPage.Begin}\nsection\n{VerdictsPage.End}\n");

        Assert.Equal($"# Measured results\n\ntext\n\n{VerdictsPage.Begin}\nsection\n{VerdictsPage.End}\n", page);
    }

    private static async Task<string> RenderAsync()
    {
        var runs = new List<VerdictsPage.Run>();
        foreach (var name in new[] { "verdicts-old.json", "verdicts-new.json" })
        {
            var (report, error) = await CompareCommand.LoadAsync(Path.Combine(Fixtures, name), CancellationToken.None);
            runs.Add(new VerdictsPage.Run(name, report ?? throw new InvalidOperationException(error)));
        }

        return VerdictsPage.Render(runs);
    }

    private static async Task<(int Exit, string Output, string Error)> RunAsync(string page)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exit = await ReportCommand.RunAsync([Path.Combine(Fixtures, "verdicts-new.json"), Path.Combine(Fixtures, "verdicts-old.json"), "--verdicts", page], output, error);
        return (exit, output.ToString(), error.ToString());
    }
}
