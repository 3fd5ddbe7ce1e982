using System.Globalization;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Client;

/// <summary>How put and get write sizes, rates and durations: binary units, invariant culture.</summary>
internal static class TransferUnits
{
    private const double KiB = 1024;
    private const double MiB = 1024 * 1024;
    private const double GiB = 1024 * 1024 * 1024;

    /// <summary>A size for people: "812 B", "1.5 KiB", "200.0 MiB", "1.25 GiB".</summary>
    public static string Bytes(long bytes) => bytes switch
    {
        < 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes} B"),
        < 1024 * 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes / KiB:0.0} KiB"),
        < 1024 * 1024 * 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes / MiB:0.0} MiB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes / GiB:0.00} GiB"),
    };

    /// <summary>Mebibytes per second with one decimal.</summary>
    public static string Rate(double bytesPerSecond) =>
        string.Create(CultureInfo.InvariantCulture, $"{bytesPerSecond / MiB:0.0} MiB/s");

    /// <summary>The rate of <paramref name="bytes"/> over <paramref name="seconds"/>; 0 for an instant transfer.</summary>
    public static double BytesPerSecond(long bytes, double seconds) => seconds > 0 ? bytes / seconds : 0;

    /// <summary>Seconds with three decimals, as the final lines print them.</summary>
    public static string Seconds(double seconds) => string.Create(CultureInfo.InvariantCulture, $"{seconds:0.000}");

    /// <summary>A remaining time: "0:07", "12:30", "2:05:00"; "--:--" when unknown.</summary>
    public static string Eta(double? seconds)
    {
        if (seconds is not { } value || double.IsNaN(value) || double.IsInfinity(value) || value < 0 || value > TimeSpan.FromDays(99).TotalSeconds)
        {
            return "--:--";
        }

        var time = TimeSpan.FromSeconds(Math.Ceiling(value));
        return time.TotalHours >= 1
            ? string.Create(CultureInfo.InvariantCulture, $"{(int)time.TotalHours}:{time.Minutes:00}:{time.Seconds:00}")
            : string.Create(CultureInfo.InvariantCulture, $"{time.Minutes}:{time.Seconds:00}");
    }

    /// <summary>The "N bytes in T s (R MiB/s)" ("1 byte in …") tail of the final lines.</summary>
    public static string Summary(long bytes, double seconds) =>
        string.Create(CultureInfo.InvariantCulture, $"{CountText.Format(bytes, "byte")} in {Seconds(seconds)} s ({Rate(BytesPerSecond(bytes, seconds))})");
}
