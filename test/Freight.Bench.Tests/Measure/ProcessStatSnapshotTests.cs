using System.Diagnostics;
using Freight.Bench.Measure;

namespace Freight.Bench.Tests.Measure;

/// <summary>Reads /proc for a live process (this one) and a process that has exited.</summary>
public sealed class ProcessStatSnapshotTests
{
    [Theory]
    [InlineData("0-1", 2)]
    [InlineData("0", 1)]
    [InlineData("0-3,8,10-11", 7)]
    [InlineData("", null)]
    [InlineData("x-1", null)]
    [InlineData("3-1", null)]
    public void CountCpus_CpusAllowedList_CpusInIt(string list, int? cpus) =>
        Assert.Equal(cpus, ProcessStatSnapshot.CountCpus(list));

    [Fact]
    public void Capture_ThisProcess_ThreadsAndAllowedCpus()
    {
        var snapshot = ProcessStatSnapshot.Capture(Environment.ProcessId);

        Assert.NotNull(snapshot);
        Assert.True(snapshot.Threads >= 1);
        Assert.Equal(Environment.ProcessorCount, snapshot.AllowedCpus);
    }

    [Fact]
    public void Capture_CurrentProcessAfterSpinning_ReadsCpuTimeAndResidentSet()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Null(ProcessStatSnapshot.Capture(Environment.ProcessId)); // /proc is Linux's
            return;
        }

        var until = Environment.TickCount64 + 100;
        var spins = 0L;
        while (Environment.TickCount64 < until)
        {
            spins++;
        }

        var snapshot = ProcessStatSnapshot.Capture(Environment.ProcessId);

        Assert.True(spins > 0);
        Assert.NotNull(snapshot);
        Assert.Equal(Environment.ProcessId, snapshot.ProcessId);
        Assert.True(snapshot.CpuSeconds > 0);
        Assert.True(snapshot.WorkingSetBytes > 0);
        Assert.True(snapshot.StartTimeTicks > 0);
    }

    [Fact]
    public void Capture_CurrentProcessTwice_KeepsItsStartTimeAndNeverLosesCpuTime()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Null(ProcessStatSnapshot.Capture(Environment.ProcessId)); // /proc is Linux's
            return;
        }


        var first = ProcessStatSnapshot.Capture(Environment.ProcessId);
        var second = ProcessStatSnapshot.Capture(Environment.ProcessId);

        Assert.NotNull(first);
        Assert.NotNull(second);
        Assert.Equal(first.StartTimeTicks, second.StartTimeTicks);
        Assert.True(second.CpuSeconds >= first.CpuSeconds);
        Assert.True(second.Timestamp >= first.Timestamp);
    }

    [Fact]
    public void Capture_ProcessThatHasExited_IsNull()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Null(ProcessStatSnapshot.Capture(Environment.ProcessId)); // /proc is Linux's
            return;
        }

        int pid;
        using (var child = Process.Start(new ProcessStartInfo("true") { UseShellExecute = false })!)
        {
            pid = child.Id;
            child.WaitForExit();
        }

        // WaitForExit returns once the runtime has reaped the child, so /proc no longer holds it (no zombie).
        Assert.Null(ProcessStatSnapshot.Capture(pid));
    }

    [Fact]
    public void Capture_NoSuchProcessId_IsNull()
    {
        Assert.Null(ProcessStatSnapshot.Capture(0));
        Assert.Null(ProcessStatSnapshot.Capture(-5));
        Assert.Null(ProcessStatSnapshot.Capture(int.MaxValue)); // beyond any pid_max (at most 2^22)
    }

    [Theory]
    [InlineData("1234 (nginx) S 1 1234 1234 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 1 0 777 10000000 500 18446744073709551615", 777, 300)]
    [InlineData("99 (a (b) c) R 1 99 99 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 42 0 0 0", 42, 10)]
    public void ParseStat_CommWithSpacesAndParentheses_ReadsStartTimeAndCpuTicks(string text, long start, long cpuTicks)
    {
        Assert.Equal((start, cpuTicks), ProcessStatSnapshot.ParseStat(text));
    }

    [Theory]
    [InlineData("1234 (nginx) Z 1 1234 1234 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 1 0 777 0 0")]
    [InlineData("1234 (nginx) S 1 2")]
    [InlineData("garbage")]
    public void ParseStat_ExitedOrMalformed_IsNull(string text)
    {
        Assert.Null(ProcessStatSnapshot.ParseStat(text));
    }
}
