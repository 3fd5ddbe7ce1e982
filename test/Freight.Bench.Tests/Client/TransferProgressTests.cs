using Freight.Bench.Client;

namespace Freight.Bench.Tests.Client;

public sealed class TransferProgressTests
{
    private const long MiB = 1024 * 1024;

    [Fact]
    public void Report_NotInteractive_WritesNothing()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: false, "get", 100 * MiB, time: clock);

        for (var i = 1; i <= 50; i++)
        {
            clock.Advance(TimeSpan.FromMilliseconds(100));
            progress.Report(i * MiB);
        }

        progress.Clear();
        Assert.Equal("", writer.ToString());
        Assert.Equal(50 * MiB, progress.BytesDone);
    }

    [Fact]
    public void Report_BeforeFirstInterval_DrawsNothing()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "put", 100 * MiB, time: clock);

        clock.Advance(TimeSpan.FromMilliseconds(99));
        progress.Report(MiB);
        progress.Clear();

        Assert.Equal("", writer.ToString());
    }

    [Fact]
    public void Report_Interactive_RedrawsOneLineWithCarriageReturn()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "get", 100 * MiB, time: clock);

        clock.Advance(TimeSpan.FromMilliseconds(100));
        progress.Report(2 * MiB);

        var text = writer.ToString();
        Assert.StartsWith("\rget 2.0 MiB / 100.0 MiB   2%", text, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', text);
        Assert.DoesNotContain('\u001b', text);
    }

    [Fact]
    public void Report_EveryTenMilliseconds_RedrawsAtMostTenTimesASecond()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "get", 100 * MiB, time: clock);

        for (var i = 1; i <= 100; i++)
        {
            clock.Advance(TimeSpan.FromMilliseconds(10));
            progress.Report(i * MiB / 2);
        }

        Assert.Equal(10, writer.ToString().Count(c => c == '\r'));
    }

    [Fact]
    public void Report_SteadyTenMiBPerSecond_ShowsRateOfLastSecondAndEta()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "get", 100 * MiB, time: clock);

        // A slow first second, then 10 MiB/s: the rate shown is the last second's, not the average.
        clock.Advance(TimeSpan.FromSeconds(1));
        progress.Report(MiB);
        for (var i = 1; i <= 30; i++)
        {
            clock.Advance(TimeSpan.FromMilliseconds(100));
            progress.Report(MiB + (i * MiB));
        }

        var lastLine = writer.ToString().Split('\r')[^1].TrimEnd();
        Assert.Equal("get 31.0 MiB / 100.0 MiB  31%  10.0 MiB/s  ETA 0:07", lastLine);
    }

    [Fact]
    public void Report_AfterAStall_ShowsZeroRateAndUnknownEta()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "get", 100 * MiB, time: clock);
        for (var i = 1; i <= 20; i++)
        {
            clock.Advance(TimeSpan.FromMilliseconds(100));
            progress.Report(i * MiB);
        }

        clock.Advance(TimeSpan.FromSeconds(1.5));
        progress.Report(20 * MiB);

        var lastLine = writer.ToString().Split('\r')[^1].TrimEnd();
        Assert.Equal("get 20.0 MiB / 100.0 MiB  20%  0.0 MiB/s  ETA --:--", lastLine);
    }

    [Fact]
    public void Report_UnknownTotal_ShowsBytesAndRateOnly()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "get", total: null, time: clock);

        clock.Advance(TimeSpan.FromSeconds(1));
        progress.Report(5 * MiB);

        Assert.Equal("\rget 5.0 MiB  5.0 MiB/s", writer.ToString());
    }

    [Fact]
    public void Report_ResumedAtAnOffset_CountsOnlyNewBytesInTheRate()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "get", 100 * MiB, initialBytes: 50 * MiB, time: clock);

        clock.Advance(TimeSpan.FromSeconds(1));
        progress.Advance((int)(2 * MiB));

        Assert.Equal("\rget 52.0 MiB / 100.0 MiB  52%  2.0 MiB/s  ETA 0:24", writer.ToString());
    }

    [Fact]
    public void Clear_AfterADraw_BlanksTheLineOnce()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "put", 10 * MiB, time: clock);
        clock.Advance(TimeSpan.FromSeconds(1));
        progress.Report(MiB);
        var drawn = writer.ToString();

        progress.Clear();
        progress.Clear();

        var cleared = writer.ToString()[drawn.Length..];
        Assert.Equal("\r" + new string(' ', drawn.Length - 1) + "\r", cleared);
    }

    [Fact]
    public void Report_ShorterLineAfterLongerOne_PadsOverTheRest()
    {
        var clock = new ManualClock();
        var writer = new StringWriter();
        var progress = new TransferProgress(writer, interactive: true, "get", 2000 * MiB, time: clock);
        clock.Advance(TimeSpan.FromSeconds(1));
        progress.Report(1500 * MiB);
        var first = writer.ToString();

        clock.Advance(TimeSpan.FromSeconds(5));
        progress.Report(1500 * MiB);
        var second = writer.ToString()[first.Length..];

        Assert.Equal(first.Length, second.Length);
    }
}
