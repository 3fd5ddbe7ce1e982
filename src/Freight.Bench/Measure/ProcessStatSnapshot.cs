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
    /// <summary>The process's threads (<c>Threads</c> of <c>/proc/PID/status</c>).</summary>
    public int? Threads { get; init; }

    /// <summary>CPUs the process may run on (<c>Cpus_allowed_list</c>): what "all its cores" means for it.</summary>
    public int? AllowedCpus { get; init; }

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
            var (rss, threads, cpus) = ReadStatus(directory + "/status");
            if (stat is null || rss is null)
            {
                return null;
            }

            var (startTime, cpuTicks) = stat.Value;
            return new ProcessStatSnapshot(processId, startTime, cpuTicks / ClockTicksPerSecond, rss.Value, DateTimeOffset.UtcNow)
            {
                Threads = threads,
                AllowedCpus = cpus,
            };
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

    // "VmRSS:    12345 kB" (absent for kernel threads and processes that have exited), "Threads:  7",
    // "Cpus_allowed_list:  0-1,4".
    private static (long? ResidentBytes, int? Threads, int? AllowedCpus) ReadStatus(string path)
    {
        long? rss = null;
        int? threads = null;
        int? cpus = null;
        foreach (var line in File.ReadLines(path))
        {
            if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
            {
                var value = line.AsSpan(6).Trim();
                if (value.EndsWith("kB", StringComparison.Ordinal))
                {
                    value = value[..^2].TrimEnd();
                }

                rss = long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var kibibytes) ? kibibytes * 1024 : null;
            }
            else if (line.StartsWith("Threads:", StringComparison.Ordinal))
            {
                threads = int.TryParse(line.AsSpan(8).Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out var count) ? count : null;
            }
            else if (line.StartsWith("Cpus_allowed_list:", StringComparison.Ordinal))
            {
                cpus = CountCpus(line.AsSpan(18).Trim());
            }
        }

        return (rss, threads, cpus);
    }

    /// <summary>Counts the CPUs of a list such as <c>0-1,4</c>; null when it is not one.</summary>
    internal static int? CountCpus(ReadOnlySpan<char> list)
    {
        var count = 0;
        foreach (var range in list.Split(','))
        {
            var item = list[range].Trim();
            var dash = item.IndexOf('-');
            if (dash < 0)
            {
                if (!int.TryParse(item, NumberStyles.None, CultureInfo.InvariantCulture, out _))
                {
                    return null;
                }

                count++;
            }
            else if (int.TryParse(item[..dash], NumberStyles.None, CultureInfo.InvariantCulture, out var first)
                && int.TryParse(item[(dash + 1)..], NumberStyles.None, CultureInfo.InvariantCulture, out var last) && last >= first)
            {
                count += last - first + 1;
            }
            else
            {
                return null;
            }
        }

        return count > 0 ? count : null;
    }
}
