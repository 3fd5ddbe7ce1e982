using System.Globalization;

namespace Freight.Bench.Measure;

/// <summary>
/// The whole machine's busy CPU time at one instant (<c>/proc/stat</c>'s <c>cpu</c> line: user, nice, system, irq,
/// softirq and steal; guest time is inside user), and its CPUs (the <c>cpuN</c> lines): two snapshots around a run,
/// less what the run's own processes used, give what every other process took from it.
/// </summary>
public sealed record MachineCpuSnapshot(double BusySeconds, int Cpus, DateTimeOffset Timestamp)
{
    /// <summary>Now; null off Linux or when <c>/proc/stat</c> cannot be read.</summary>
    public static MachineCpuSnapshot? Capture()
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        try
        {
            return Parse(File.ReadAllLines("/proc/stat"), DateTimeOffset.UtcNow);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    internal static MachineCpuSnapshot? Parse(IEnumerable<string> lines, DateTimeOffset at)
    {
        double? busy = null;
        var cpus = 0;
        foreach (var line in lines)
        {
            var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length < 9 || !fields[0].StartsWith("cpu", StringComparison.Ordinal))
            {
                continue;
            }

            if (fields[0] != "cpu")
            {
                cpus++;
                continue;
            }

            // user nice system idle iowait irq softirq steal: all but idle and iowait.
            long ticks = 0;
            foreach (var index in new[] { 1, 2, 3, 6, 7, 8 })
            {
                ticks += long.Parse(fields[index], NumberStyles.None, CultureInfo.InvariantCulture);
            }

            busy = ticks / ProcessStatSnapshot.ClockTicksPerSecond;
        }

        return busy is { } seconds && cpus > 0 ? new MachineCpuSnapshot(seconds, cpus, at) : null;
    }
}
