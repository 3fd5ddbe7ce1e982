using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Progress;

public sealed class PlainProgressTests
{
    [Fact]
    public void PlainProgress_WholeSuiteWithHostileMessages_WritesNoControlCharacterButLineFeeds()
    {
        var output = new StringWriter();
        var time = new ManualTime();
        var progress = new PlainProgress(output, time);

        RunSuite(progress, time);
        progress.Line("FAILED peer/tus-node (20 MiB): \u001b[31mbroken\r\npeer\tsaid \u0007\u007f\u009b2J");
        progress.Detail("  t=  5s  conns   63");
        progress.Complete();

        var text = output.ToString();
        Assert.NotEmpty(text);
        Assert.All(text, c => Assert.True(c == '\n' || (c >= ' ' && c is < '\u007f' or > '\u009f'), $"control character U+{(int)c:X4}"));
        Assert.Contains("FAILED peer/tus-node (20 MiB):  [31mbroken \npeer said    2J\n", text, StringComparison.Ordinal);
        Assert.Empty(time.Timers);
    }

    [Fact]
    public void PlainProgress_WholeSuite_OneLinePerScenarioStartRunAndRow()
    {
        var output = new StringWriter();
        var time = new ManualTime();
        var progress = new PlainProgress(output, time);

        RunSuite(progress, time);

        Assert.Equal(
            [
                "transfer suite: 2 scenarios × 2 runs",
                "transfer: tcp/loopback (tcp 1024K) warm-up …",
                "transfer: download/freight (http h1 memory 64K) warm-up …",
                // The steps so far took 1.5× their plan (3 s for 2): the 2 planned seconds after this step take ~3 s.
                "transfer run 1/2 done in 4.0 s, ~3 s left",
                "transfer run 2/2 done in 4.0 s",
                "  scenario                   parameters                       result",
                "  tcp/loopback               tcp 1024K                          3,000 MiB/s    2,900–3,100  12 verified",
                "  download/freight           http h1 memory 64K               NOT VERIFIED: 3 bytes short",
                "transfer suite done in 9.0 s",
            ],
            output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    /// <summary>Two scenarios, a warm-up (0.5 s planned and taken) and two runs (1 s planned, 2 s taken) each; the second fails.</summary>
    private static void RunSuite(PlainProgress progress, ManualTime time)
    {
        progress.SuiteStarted("transfer", "transfer suite: 2 scenarios × 2 runs", 2 * (0.5 + (2 * 1.0)));
        string[][] scenarios = [["tcp/loopback", "tcp 1024K"], ["download/freight", "http h1 memory 64K"]];
        foreach (var scenario in scenarios)
        {
            progress.StepStarted(new ProgressStep(scenario[0], scenario[1], "warm-up", 0.5) { Begins = true });
            progress.Live.AddVerified(20L << 20);
            time.Advance(TimeSpan.FromSeconds(0.5));
        }

        for (var run = 1; run <= 2; run++)
        {
            foreach (var scenario in scenarios)
            {
                progress.StepStarted(new ProgressStep(scenario[0], scenario[1], $"run {run}/2", 1));
                progress.Live.AddVerified(20L << 20);
                time.Advance(TimeSpan.FromSeconds(2));
            }

            progress.RunFinished(run, 2, TimeSpan.FromSeconds(4));
        }

        progress.RowFinished(TerminalProgressTests.Row("tcp/loopback", "tcp 1024K", 3000));
        progress.RowFinished(new ScenarioResult
        {
            Scenario = "download/freight",
            Parameters = new ScenarioParameters { Label = "http h1 memory 64K" },
            Verified = false,
            Error = "3 bytes short",
        });
        progress.SuiteFinished();
    }
}
