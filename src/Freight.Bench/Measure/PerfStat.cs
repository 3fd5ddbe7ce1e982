using System.Globalization;

namespace Freight.Bench.Measure;

/// <summary>What <c>perf stat</c> said: the instructions it counted, or why it counted none.</summary>
public sealed record PerfReading(long? Instructions, string? Unavailable)
{
    public static PerfReading Counted(long instructions) => new(instructions, null);

    public static PerfReading None(string why) => new(null, why);
}

/// <summary>
/// Reads the output of <c>perf stat -x, -e instructions</c> (what it writes to stderr): CSV lines of
/// <c>value,unit,event,run time,percentage,…</c>, or with <c>-I</c> one per interval with its timestamp first,
/// whose values add up. The value is a count, or <c>&lt;not supported&gt;</c> (no hardware counter: many VMs) or
/// <c>&lt;not counted&gt;</c>; when perf may not count at all it prints an error instead (perf_event_paranoid).
/// </summary>
public static class PerfStat
{
    /// <summary>The event the bench counts.</summary>
    public const string Event = "instructions";

    public static PerfReading Parse(string output)
    {
        ArgumentNullException.ThrowIfNull(output);
        long total = 0;
        var counted = false;
        string? notCounted = null;
        foreach (var rawLine in output.Split('\n'))
        {
            var fields = rawLine.Trim().Split(',');

            // value,unit,event,… or, with -I, timestamp,value,unit,event,… ("instructions:u" for a user-only count).
            var at = fields.Length > 2 && IsEvent(fields[2]) ? 0 : fields.Length > 3 && IsEvent(fields[3]) ? 1 : -1;
            if (at < 0)
            {
                continue;
            }

            var value = fields[at];
            if (long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var instructions))
            {
                total += instructions;
                counted = true;
            }
            else
            {
                notCounted ??= value switch
                {
                    "<not supported>" => "perf stat: instructions <not supported> (no hardware counter here: a VM's hypervisor often exposes none)",
                    "<not counted>" => "perf stat: instructions <not counted> (the counter could not be scheduled)",
                    _ => $"perf stat: instructions '{value}'",
                };
            }
        }

        if (counted && notCounted is null)
        {
            return PerfReading.Counted(total);
        }

        if (notCounted is not null)
        {
            return PerfReading.None(notCounted);
        }

        if (output.Contains("perf_event_paranoid", StringComparison.Ordinal)
            || output.Contains("permission", StringComparison.OrdinalIgnoreCase)
            || output.Contains("Access to performance monitoring", StringComparison.Ordinal))
        {
            return PerfReading.None($"perf stat: not permitted (kernel.perf_event_paranoid is {Paranoid()}; root or CAP_PERFMON, or a value ≤ 2 for a process of one's own)");
        }

        var first = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).FirstOrDefault();
        return PerfReading.None(first is null ? "perf stat printed no count" : $"perf stat printed no count: {first}");
    }

    private static bool IsEvent(string field) => field == Event || field.StartsWith(Event + ":", StringComparison.Ordinal);

    private static string Paranoid()
    {
        try
        {
            return File.ReadAllText("/proc/sys/kernel/perf_event_paranoid").Trim();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return "unreadable";
        }
    }
}
