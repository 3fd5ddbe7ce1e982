using System.Globalization;
using System.Text;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Progress;

/// <summary>The text both progress displays share: the rows' table, durations, rates, and control-free text.</summary>
internal static class ProgressText
{
    private const double MiB = 1024 * 1024;

    // Wide enough for the longest ids and labels of the suites (upload/multipart-freight, "http h1 memory 64K stock-pool").
    private const int IdWidth = 26;
    private const int LabelWidth = 32;

    // "12,345 MiB/s", "123,456 req/s": a figure column.
    private const int FigureWidth = 13;

    public static string RowHeader { get; } = Row("scenario", "parameters", "result");

    /// <summary>A finished row: its id, label and key figures, or NOT VERIFIED and why.</summary>
    public static string Row(ScenarioResult row)
    {
        ArgumentNullException.ThrowIfNull(row);
        var label = row.Parameters.Label ?? "";
        return Row(row.Scenario, label, Figures(row));
    }

    /// <summary>The line a suite ends with.</summary>
    public static string SuiteDone(string suite, TimeSpan elapsed) => $"{suite} suite done in {Duration(elapsed)}";

    /// <summary>Seconds with one decimal below a minute, then m:ss (h:mm:ss past an hour).</summary>
    public static string Duration(TimeSpan span) => span.TotalSeconds switch
    {
        < 60 => span.TotalSeconds.ToString("0.0", CultureInfo.InvariantCulture) + " s",
        < 3600 => span.ToString(@"m\:ss", CultureInfo.InvariantCulture),
        _ => span.ToString(@"h\:mm\:ss", CultureInfo.InvariantCulture),
    };

    /// <summary>An estimate of time left: "~7 s", "~3:25" (whole seconds: an estimate has no tenths).</summary>
    public static string Remaining(TimeSpan span)
    {
        var whole = TimeSpan.FromSeconds(Math.Round(Math.Max(0, span.TotalSeconds)));
        return "~" + (whole.TotalSeconds < 60 ? whole.TotalSeconds.ToString("0", CultureInfo.InvariantCulture) + " s" : Duration(whole));
    }

    /// <summary>A rate in the step's unit: "1,842 MiB/s", "12,345 req/s"; "-- MiB/s" before anything is done.</summary>
    public static string Rate(double? perSecond, ProgressUnit unit)
    {
        var suffix = unit == ProgressUnit.Bytes ? " MiB/s" : " req/s";
        if (perSecond is not { } rate)
        {
            return "--" + suffix;
        }

        return Number(unit == ProgressUnit.Bytes ? rate / MiB : rate) + suffix;
    }

    /// <summary>Whole numbers with thousands separators; one decimal below 100 (a JSON response rate of 4.2/s).</summary>
    public static string Number(double value) =>
        value.ToString(Math.Abs(value) < 100 ? "0.0" : "#,0", CultureInfo.InvariantCulture);

    /// <summary>
    /// <paramref name="text"/> with every control character but line feeds replaced by a space: C0 (tab, CR, ESC),
    /// DEL and C1 (0x9B is a CSI to some terminals). Messages come from servers, peers and exceptions; none of
    /// them may move the cursor or restyle a log.
    /// </summary>
    public static string Sanitize(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var clean = true;
        foreach (var c in text)
        {
            if (IsControl(c))
            {
                clean = false;
                break;
            }
        }

        if (clean)
        {
            return text;
        }

        var builder = new StringBuilder(text.Length);
        foreach (var c in text)
        {
            builder.Append(IsControl(c) ? ' ' : c);
        }

        return builder.ToString();
    }

    private static bool IsControl(char c) => c != '\n' && (c < ' ' || c is >= '\u007f' and <= '\u009f');

    private static string Row(string id, string label, string figures) =>
        $"  {id.PadRight(IdWidth)} {label.PadRight(LabelWidth)} {figures}";

    private static string Figures(ScenarioResult row)
    {
        if (!row.Verified)
        {
            return row.Error is { Length: > 0 } error ? "NOT VERIFIED: " + error : "NOT VERIFIED";
        }

        // The rate first and right-aligned, so the rows' figures line up as a table's column.
        var parts = new List<string>();
        if (row.RequestsPerSecond is { } requests)
        {
            parts.Add(Rate(requests.Median, ProgressUnit.Requests).PadLeft(FigureWidth));
            if (row.BytesPerSecond is { } bytes)
            {
                parts.Add(Rate(bytes.Median, ProgressUnit.Bytes).PadLeft(FigureWidth));
            }

            if (row.LatencySeconds is { } latency)
            {
                parts.Add("p99 " + Latency(latency.P99));
            }
        }
        else if (row.BytesPerSecond is { } bytes)
        {
            parts.Add(Rate(bytes.Median, ProgressUnit.Bytes).PadLeft(FigureWidth));
            parts.Add($"{Number(bytes.Min / MiB)}–{Number(bytes.Max / MiB)}".PadLeft(FigureWidth));
        }

        if (row.Transfers > 0)
        {
            parts.Add($"{row.Transfers.ToString("#,0", CultureInfo.InvariantCulture)} verified");
        }

        return string.Join("  ", parts);
    }

    private static string Latency(double seconds) => seconds < 1
        ? (seconds * 1000).ToString(seconds < 0.01 ? "0.00" : "0.0", CultureInfo.InvariantCulture) + " ms"
        : seconds.ToString("0.00", CultureInfo.InvariantCulture) + " s";
}
