using Freight.Bench.Measure;

namespace Freight.Bench.Tests.Measure;

/// <summary>
/// <see cref="PerfStat.Parse"/> on what <c>perf stat -x, -e instructions</c> writes to stderr. The &lt;not supported&gt;
/// lines were captured on this project's VM (perf 6.1, no hardware counter exposed), as a plain count and with -I; the
/// counted lines follow the same CSV layout (value, unit, event, run time, percentage, metric) with a count in the
/// first field; the permission errors are perf's own texts for perf_event_paranoid (older and newer perf).
/// </summary>
public sealed class PerfStatTests
{
    [Fact]
    public void Parse_CountedPlain_IsTheCount()
    {
        var reading = PerfStat.Parse("3410785112,,instructions,1293418003,100.00,1.52,insn per cycle\n");

        Assert.Equal(3_410_785_112, reading.Instructions);
        Assert.Null(reading.Unavailable);
    }

    [Fact]
    public void Parse_CountedIntervals_AddUpIncludingTheLastPartialOne()
    {
        const string Output = """
                 0.010112345,1200000,,instructions:u,10011234,100.00,,
                 0.020231456,2300000,,instructions:u,10009876,100.00,,
                 0.024410012,450000,,instructions:u,4178011,100.00,,

            """;

        Assert.Equal(3_950_000, PerfStat.Parse(Output).Instructions);
    }

    [Theory]
    [InlineData("<not supported>,,instructions,0,100.00,,\n")]
    [InlineData("     0.105481282,<not supported>,,instructions,0,100.00,,\n     0.205770222,<not supported>,,instructions,0,100.00,,\n")]
    [InlineData("<not supported>,,instructions:u,0,100.00,,\n")]
    public void Parse_NotSupported_IsNoCountAndSaysSo(string output)
    {
        var reading = PerfStat.Parse(output);

        Assert.Null(reading.Instructions);
        Assert.Contains("<not supported>", reading.Unavailable, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_NotCounted_IsNoCountAndSaysSo()
    {
        var reading = PerfStat.Parse("<not counted>,,instructions,0,0.00,,\n");

        Assert.Null(reading.Instructions);
        Assert.Contains("<not counted>", reading.Unavailable, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_SomeIntervalsNotCounted_IsNoCount()
    {
        // A count with holes in it would be of part of the run only.
        var reading = PerfStat.Parse("     0.010,1200000,,instructions,10011234,100.00,,\n     0.020,<not counted>,,instructions,0,0.00,,\n");

        Assert.Null(reading.Instructions);
    }

    [Theory]
    [InlineData("""
        Error:
        You may not have permission to collect stats.

        Consider tweaking /proc/sys/kernel/perf_event_paranoid,
        which controls use of the performance events system by
        unprivileged users (without CAP_SYS_ADMIN).

        The current value is 3:
        """)]
    [InlineData("""
        Error:
        Access to performance monitoring and observability operations is limited.
        Consider adjusting /proc/sys/kernel/perf_event_paranoid setting to open
        access to performance monitoring and observability operations for processes
        without CAP_PERFMON, CAP_SYS_PTRACE or CAP_SYS_ADMIN Linux capability.
        """)]
    [InlineData("""
        Error:
        No permission to enable instructions event.
        """)]
    public void Parse_PermissionDenied_IsNoCountNotPermitted(string output)
    {
        var reading = PerfStat.Parse(output);

        Assert.Null(reading.Instructions);
        Assert.StartsWith("perf stat: not permitted (kernel.perf_event_paranoid is ", reading.Unavailable, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_ProcessGone_IsNoCountWithPerfsFirstLine()
    {
        var reading = PerfStat.Parse("Problems finding threads of monitor\n\n Usage: perf stat [<options>] [<command>]\n");

        Assert.Null(reading.Instructions);
        Assert.Equal("perf stat printed no count: Problems finding threads of monitor", reading.Unavailable);
    }

    [Fact]
    public async Task Probe_WithoutAProcess_IsUnavailableAndSaysWhy()
    {
        var counter = await InstructionCounter.ProbeAsync(null, CancellationToken.None);

        Assert.False(counter.Available);
        Assert.Contains("--target", counter.Unavailable, StringComparison.Ordinal);
        Assert.Null(await counter.StartAsync(CancellationToken.None));
    }
}
