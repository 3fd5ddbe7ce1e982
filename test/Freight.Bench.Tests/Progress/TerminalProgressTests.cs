using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Progress;

public sealed class TerminalProgressTests
{
    private const long TwentyMiB = 20L * 1024 * 1024;

    private const string Erase = "\u001b[2K";
    private const string Up = "\u001b[1A";

    [Fact]
    public void TerminalProgress_Created_RedrawsFromA100MillisecondTimer()
    {
        var time = new ManualTime();

        using var progress = new TerminalProgress(new StringWriter(), 120, time);

        Assert.Equal(TimeSpan.FromMilliseconds(100), Assert.Single(time.Timers).Period);
    }

    [Fact]
    public void TerminalProgress_StepAndTransfersWithoutATick_DrawNoLiveLine()
    {
        var (output, time, progress) = Start();

        progress.StepStarted(new ProgressStep("download/freight", "http h1 memory 64K", "run 1/3", 2));
        time.Advance(TimeSpan.FromSeconds(1));
        progress.Live.AddVerified(TwentyMiB);

        Assert.Equal("transfer suite: 5 scenarios × 3 runs\n", output.ToString());
    }

    [Fact]
    public void TerminalProgress_Tick_DrawsStepLineAndBarWithTimeLeftRateAndVerifiedCount()
    {
        var (output, time, progress) = Start();
        progress.StepStarted(new ProgressStep("download/freight", "http h1 memory 64K", "run 1/3", 2));
        for (var i = 0; i < 3; i++)
        {
            progress.Live.AddVerified(TwentyMiB);
        }

        time.Tick(TimeSpan.FromSeconds(1));

        // 10 s planned, the first step 1 s into its 2: 1 s left of it and 8 s after it, so 1 s of 10 is done.
        Assert.Equal(
            "transfer suite: 5 scenarios × 3 runs\n"
            + TerminalProgress.HideCursor
            + "transfer  download/freight (http h1 memory 64K)  run 1/3\n"
            + "[██░░░░░░░░░░░░░░░░░░]  10%  1.0 s / ~9 s left  60.0 MiB/s  verified 3/3",
            output.ToString());
    }

    [Fact]
    public void TerminalProgress_SecondTick_ErasesBothLiveLinesAndRedrawsThemInPlace()
    {
        var (output, time, progress) = Start();
        progress.StepStarted(new ProgressStep("download/freight", "http h1 memory 64K", "run 1/3", 2));
        time.Tick(TimeSpan.FromSeconds(1));
        var before = output.ToString().Length;

        progress.Live.AddVerified(TwentyMiB);
        progress.Live.AddFailed();
        time.Tick(TimeSpan.FromSeconds(1));

        Assert.Equal(
            "\r" + Erase + Up + Erase
            + "transfer  download/freight (http h1 memory 64K)  run 1/3\n"
            + "[████░░░░░░░░░░░░░░░░]  20%  2.0 s / ~8 s left  10.0 MiB/s  verified 1/2  FAILED 1",
            output.ToString()[before..]);
    }

    [Fact]
    public void TerminalProgress_LoadStep_ShowsRequestsPerSecondAndTheLatestDetail()
    {
        var (output, time, progress) = Start();
        progress.StepStarted(new ProgressStep("threads/delay", "1→100 conns over 8 s, 1000 ms", "on a fresh server", 2, ProgressUnit.Requests));
        progress.Live.AddVerified(0, 250);
        progress.Detail("  t=  5s  conns   63  done/s    61  p99   1.01s");

        time.Tick(TimeSpan.FromSeconds(1));

        var screen = TerminalScreen.Of(output.ToString());
        Assert.EndsWith("250 req/s  verified 250/250  t=  5s  conns   63  done/s    61  p99   1.01s", screen.Lines[^1], StringComparison.Ordinal);
    }

    [Fact]
    public void TerminalProgress_LinesAndRows_StayAboveTheLiveLinesAsATable()
    {
        var (output, time, progress) = Start();
        progress.StepStarted(new ProgressStep("download/freight", "http h1 memory 64K", "run 3/3", 2));
        time.Tick(TimeSpan.FromSeconds(1));

        progress.Line("FAILED upload/freight (http h1 memory 64K): short body");
        progress.RowFinished(Row("tcp/loopback", "tcp 1024K", 3000));
        progress.RowFinished(Row("download/freight", "http h1 memory 64K", 1842));
        time.Tick(TimeSpan.FromSeconds(0.1));

        var screen = TerminalScreen.Of(output.ToString());
        Assert.Equal(
            [
                "transfer suite: 5 scenarios × 3 runs",
                "FAILED upload/freight (http h1 memory 64K): short body",
                "  scenario                   parameters                       result",
                "  tcp/loopback               tcp 1024K                          3,000 MiB/s    2,900–3,100  12 verified",
                "  download/freight           http h1 memory 64K                 1,842 MiB/s    1,742–1,942  12 verified",
                "transfer  download/freight (http h1 memory 64K)  run 3/3",
            ],
            screen.Lines.Take(6));
        Assert.StartsWith("[", screen.Lines[6], StringComparison.Ordinal);
        Assert.Equal(7, screen.Lines.Count);
    }

    [Fact]
    public void TerminalProgress_Complete_LeavesOnlyThePermanentLinesAndShowsTheCursor()
    {
        var (output, time, progress) = Start();
        progress.StepStarted(new ProgressStep("download/freight", "http h1 memory 64K", "run 1/1", 2));
        time.Tick(TimeSpan.FromSeconds(1));
        progress.RowFinished(Row("download/freight", "http h1 memory 64K", 1842));
        time.Tick(TimeSpan.FromSeconds(1));
        progress.SuiteFinished();
        time.Tick(TimeSpan.FromSeconds(0.1));

        progress.Complete();
        var final = output.ToString();
        time.Tick(TimeSpan.FromSeconds(1));

        var screen = TerminalScreen.Of(final);
        Assert.True(screen.CursorVisible);
        Assert.Equal(
            [
                "transfer suite: 5 scenarios × 3 runs",
                "  scenario                   parameters                       result",
                "  download/freight           http h1 memory 64K                 1,842 MiB/s    1,742–1,942  12 verified",
                "transfer suite done in 2.0 s",
            ],
            screen.Lines);
        Assert.EndsWith(TerminalProgress.ShowCursor, final, StringComparison.Ordinal);
        Assert.Equal(final, output.ToString());
        Assert.True(Assert.Single(time.Timers).Disposed);
    }

    [Fact]
    public void TerminalProgress_DisposedMidStep_ErasesTheLiveLinesAndShowsTheCursor()
    {
        var (output, time, progress) = Start();
        progress.StepStarted(new ProgressStep("download/freight", "http h1 memory 64K", "run 1/3", 2));
        time.Tick(TimeSpan.FromSeconds(1));

        // What Ctrl+C does: the bench unwinds and its caller disposes the display.
        progress.Dispose();

        var screen = TerminalScreen.Of(output.ToString());
        Assert.True(screen.CursorVisible);
        Assert.Equal(["transfer suite: 5 scenarios × 3 runs"], screen.Lines);
    }

    [Fact]
    public void TerminalProgress_NarrowTerminal_CutsLiveLinesShortOfTheLastColumn()
    {
        var output = new StringWriter();
        var time = new ManualTime();
        using var progress = new TerminalProgress(output, 40, time);
        progress.SuiteStarted("transfer", "transfer suite", 10);
        progress.StepStarted(new ProgressStep("upload/multipart-freight", "http h1 memory 64K stock-pool", "run 1/3", 2));

        time.Tick(TimeSpan.FromSeconds(1));

        var screen = TerminalScreen.Of(output.ToString());
        Assert.Equal(3, screen.Lines.Count);
        Assert.All(screen.Lines.Skip(1), line => Assert.InRange(line.Length, 1, 39));
        Assert.EndsWith("…", screen.Lines[1], StringComparison.Ordinal);
    }

    [Fact]
    public void TerminalProgress_MessageWithControlCharacters_WritesThemAsSpaces()
    {
        var (output, _, progress) = Start();

        progress.Line("FAILED peer/tus-node: \u001b[31mbroken\rpeer\t\u009b2J");

        Assert.EndsWith("FAILED peer/tus-node:  [31mbroken peer  2J\n", output.ToString(), StringComparison.Ordinal);
    }

    private static (StringWriter Output, ManualTime Time, TerminalProgress Progress) Start()
    {
        var output = new StringWriter();
        var time = new ManualTime();
        var progress = new TerminalProgress(output, 200, time);
        progress.SuiteStarted("transfer", "transfer suite: 5 scenarios × 3 runs", 10);
        return (output, time, progress);
    }

    internal static ScenarioResult Row(string id, string label, double mibPerSecond) => new()
    {
        Scenario = id,
        Parameters = new ScenarioParameters { Label = label },
        Verified = true,
        Runs = 3,
        Transfers = 12,
        BytesPerSecond = new Summary(mibPerSecond * 1048576, (mibPerSecond - 100) * 1048576, (mibPerSecond + 100) * 1048576),
    };
}
