using System.Globalization;
using System.Text;

namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>The soak's figures as text (the test's output, and docs/results when <c>FREIGHTTEST_SOAK_REPORT</c> is set) and its samples as CSV.</summary>
internal static class SoakReport
{
    private const double MiB = 1024 * 1024;

    public static string Summary(SoakSettings settings, SoakCounters counters, IReadOnlyList<ProcessSample> samples, IReadOnlyList<GrowthTrend> trends, int filesChecked, int serverErrorLines)
    {
        var text = new StringBuilder();
        var seconds = samples[^1].Seconds;
        text.AppendLine(Invariant($"settings: {settings}; warm-up {SoakSettings.WarmUpSeconds(seconds):F0} s"));
        text.AppendLine(Invariant($"ran {seconds:F0} s: {counters.Requests:N0} requests, {counters.BytesSent / MiB:F1} MiB sent, {counters.BytesReceived / MiB:F1} MiB received"));
        text.AppendLine(Invariant($"faults (outcomes the model does not allow): {counters.FaultCount}; server log lines at fail/crit: {serverErrorLines}; files checked at the end: {filesChecked}"));
        text.AppendLine();
        text.AppendLine("| operation | answers by status |");
        text.AppendLine("|---|---|");
        foreach (var operation in counters.Answers.GroupBy(a => a.Key.Operation).OrderBy(g => g.Key, StringComparer.Ordinal))
        {
            var statuses = string.Join(", ", operation.OrderBy(a => a.Key.Status).Select(a => Invariant($"{a.Key.Status}: {a.Value:N0}")));
            text.AppendLine(Invariant($"| {operation.Key} | {statuses} |"));
        }

        text.AppendLine();
        text.AppendLine("| metric | start | end | median first third | median last third | Theil–Sen slope /min | trend over the measured span | tolerance | grows |");
        text.AppendLine("|---|---|---|---|---|---|---|---|---|");
        foreach (var trend in trends)
        {
            text.AppendLine(Invariant($"| {trend.Metric} | {trend.Start:F1} | {trend.End:F1} | {trend.FirstThirdMedian:F1} | {trend.LastThirdMedian:F1} | {trend.SlopePerMinute:+0.00;-0.00} | {trend.Growth:+0.0;-0.0} | {trend.Tolerance:F0} | {(trend.Grows ? "YES" : "no")} |"));
        }

        text.AppendLine();
        text.AppendLine("| minute | requests | MiB sent | MiB received | RSS MiB (end / max) | handles (end / max) | threads (end / max) |");
        text.AppendLine("|---|---|---|---|---|---|---|");
        ProcessSample previous = samples[0];
        foreach (var minute in samples.GroupBy(s => (int)(s.Seconds / 60)).OrderBy(g => g.Key))
        {
            var last = minute.Last();
            text.AppendLine(Invariant(
                $"| {minute.Key + 1} | {last.Requests - previous.Requests:N0} | {(last.BytesSent - previous.BytesSent) / MiB:F1} | {(last.BytesReceived - previous.BytesReceived) / MiB:F1} | {last.RssBytes / MiB:F1} / {minute.Max(s => s.RssBytes) / MiB:F1} | {last.Handles} / {minute.Max(s => s.Handles)} | {last.Threads} / {minute.Max(s => s.Threads)} |"));
            previous = last;
        }

        if (counters.FaultCount > 0)
        {
            text.AppendLine();
            text.AppendLine(Invariant($"first {counters.Faults.Count} of {counters.FaultCount} faults:"));
            foreach (var fault in counters.Faults)
            {
                text.AppendLine("- " + fault);
            }
        }

        return text.ToString();
    }

    public static string Csv(IReadOnlyList<ProcessSample> samples)
    {
        var csv = new StringBuilder("seconds,rss_kib,handles,threads,requests,bytes_sent,bytes_received\n");
        foreach (var s in samples)
        {
            csv.AppendLine(Invariant($"{s.Seconds:F1},{s.RssBytes / 1024},{s.Handles},{s.Threads},{s.Requests},{s.BytesSent},{s.BytesReceived}"));
        }

        return csv.ToString();
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
