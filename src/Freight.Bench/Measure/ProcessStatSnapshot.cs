using System.Globalization;

namespace Freight.Bench.Measure;

/// <summary>
/// CPU time and resident memory of another process, read from Linux's <c>/proc</c> at one instant: all the
/// bench can learn about a peer server (nginx) that has no counters endpoint. One process only: the time of
/// worker processes is not included, so the peer runs as a single process.
/// </summary>
/// <param name="ProcessId">The process read.</param>
/// <param name="StartTimeTicks">
/// When the process started, in clock ticks after boot (<c>/proc/PID/stat</c> field 22): two snapshots with the
/// same id but different start times are of two processes (the id was reused).
/// </param>
/// <param name="CpuSeconds">User plus system CPU time since the process started.</param>
/// <param name="WorkingSetBytes">Resident set size (<c>VmRSS</c>).</param>
/// <param name="Timestamp">When the snapshot was read.</param>
public sealed record ProcessStatSnapshot(int ProcessId, long StartTimeTicks, double CpuSeconds, long WorkingSetBytes, DateTimeOffset Timestamp)
{
    /// <summary>
    /// Clock ticks per second of <c>/proc/PID/stat</c> (<c>sysconf(_SC_CLK_TCK)</c>). The kernel reports these
    /// times in USER_HZ, which is 100 on every architecture .NET runs on (x64, arm64, arm), whatever the
    /// kernel's own tick rate: fixed here rather than asked of libc through P/Invoke.
    /// </summary>
    public const double ClockTicksPerSecond = 100;

    /// <summary>
    /// Reads process <paramref name="processId"/>; null when it does not exist (or has exited and is a zombie),
    /// when <c>/proc</c> cannot be read, or off Linux.
    /// </summary>
    public static ProcessStatSnapshot? Capture(int processId)
    {
        if (!OperatingSystem.IsLinux() || processId <= 0)
        {
            return null;
        }

        try
        {
            var directory = "/proc/" + processId.ToString(CultureInfo.InvariantCulture);
            var stat = ParseStat(File.ReadAllText(directory + "/stat"));
            var rss = ReadResidentBytes(directory + "/status");
            if (stat is null || rss is null)
            {
                return null;
            }

            var (startTime, cpuTicks) = stat.Value;
            return new ProcessStatSnapshot(processId, startTime, cpuTicks / ClockTicksPerSecond, rss.Value, DateTimeOffset.UtcNow);
        }
        catch (IOException)
        {
            // Gone between the two reads (or before the first): FileNotFound, DirectoryNotFound, ESRCH.
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>
    /// Parses the text of <c>/proc/PID/stat</c>: start time and utime + stime in clock ticks; null for a process
    /// that has exited (state Z or X) or text not in that format.
    /// </summary>
    internal static (long StartTimeTicks, long CpuTicks)? ParseStat(string text)
    {
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the fields start after the last ')'.
        var close = text.LastIndexOf(')');
        if (close < 0)
        {
            return null;
        }

        // fields[0] is field 3 (state) of proc(5); utime, stime and starttime are fields 14, 15 and 22.
        var fields = text[(close + 1)..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (fields.Length < 20 || fields[0] is "Z" or "X" or "x"
            || !long.TryParse(fields[11], NumberStyles.None, CultureInfo.InvariantCulture, out var user)
            || !long.TryParse(fields[12], NumberStyles.None, CultureInfo.InvariantCulture, out var system)
            || !long.TryParse(fields[19], NumberStyles.None, CultureInfo.InvariantCulture, out var start))
        {
            return null;
        }

        return (start, user + system);
    }

    // "VmRSS:    12345 kB"; absent for kernel threads and processes that have exited.
    private static long? ReadResidentBytes(string path)
    {
        foreach (var line in File.ReadLines(path))
        {
            if (!line.StartsWith("VmRSS:", StringComparison.Ordinal))
            {
                continue;
            }

            var value = line.AsSpan(6).Trim();
            if (value.EndsWith("kB", StringComparison.Ordinal))
            {
                value = value[..^2].TrimEnd();
            }

            return long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var kibibytes) ? kibibytes * 1024 : null;
        }

        return null;
    }
}
