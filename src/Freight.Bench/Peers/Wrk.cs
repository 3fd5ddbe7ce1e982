using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Peers;

/// <summary>
/// wrk, the C load generator, as a second opinion on the load engine: same endpoint, same connections,
/// same run. Used only when installed (<c>scripts/install-peers.sh</c>, which <c>./test.sh</c> runs on a
/// fresh machine); the bench itself installs nothing.
/// </summary>
public static partial class Wrk
{
    /// <summary>The wrk executable on PATH (or /usr/bin/wrk), or null when it is not installed.</summary>
    public static string? Find() => Executables.Find("wrk", "/usr/bin/wrk");

    /// <summary>Whether <see cref="RunAsync"/> can run wrk.</summary>
    public static bool IsInstalled => Find() is not null;

    /// <summary>
    /// Runs <c>wrk -t1 -cN -dXs --latency URL</c> and parses its report, with wrk's CPU time
    /// (<see cref="WrkResult.CpuSeconds"/>); null when wrk is not installed.
    /// Throws <see cref="InvalidOperationException"/> with wrk's output when it printed no report (it exits
    /// at once when the first connection is refused). Cancelling kills wrk.
    /// </summary>
    public static async Task<WrkResult?> RunAsync(Uri target, int connections, TimeSpan duration, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentOutOfRangeException.ThrowIfLessThan(connections, 1);
        var path = Find();
        if (path is null)
        {
            return null;
        }

        // One thread: the machine has two cores and the server needs the other. wrk takes whole seconds (at least 1).
        var seconds = Math.Max(1, (int)duration.TotalSeconds);
        var start = new ProcessStartInfo(Shell)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in (string[])["-c", TimedScript, path, "-t1", $"-c{connections}", $"-d{seconds}s", "--latency", target.AbsoluteUri])
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException("Could not start wrk.");
        try
        {
            var output = process.StandardOutput.ReadToEndAsync(cancellationToken);
            var errors = process.StandardError.ReadToEndAsync(cancellationToken);
            await process.WaitForExitAsync(cancellationToken);
            var text = await output;
            var (report, cpuSeconds) = SplitTimes(text);
            var result = Parse(report)
                ?? throw new InvalidOperationException($"wrk exited with code {process.ExitCode} without a report: {(await errors).Trim()} {report.Trim()}".Trim());
            return result with
            {
                CpuSeconds = cpuSeconds ?? throw new InvalidOperationException($"the shell printed no times after wrk: {text.Trim()}"),
            };
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }
    }

    /// <summary>The POSIX shell wrk runs under.</summary>
    private const string Shell = "/bin/sh";

    /// <summary>
    /// wrk under the shell, then the shell's <c>times</c> (POSIX): its second line is the user and system time of the
    /// shell's children, wrk alone. .NET reaps the processes it starts itself, so a child's CPU time is gone from
    /// /proc by the time <c>WaitForExitAsync</c> returns; the shell still holds it. wrk's exit status is kept.
    /// </summary>
    private const string TimedScript = "\"$0\" \"$@\"; status=$?; times; exit $status";

    /// <summary>
    /// wrk's report, and its CPU time (user + system, 10 ms ticks) from the two <c>times</c> lines the shell printed
    /// after it: the children's, the second; the whole output and null when they are missing.
    /// </summary>
    internal static (string Report, double? CpuSeconds) SplitTimes(string output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var lines = TimesLine().Matches(output);
        if (lines.Count < 2)
        {
            return (output, null);
        }

        var children = lines[^1].Groups;
        var seconds = (60 * Number(children[1].Value)) + Number(children[2].Value) + (60 * Number(children[3].Value)) + Number(children[4].Value);
        return (output[..lines[^2].Index], seconds);
    }

    /// <summary>Requests/s wrk reaches, or null when wrk is not installed or printed no report.</summary>
    public static async Task<double?> MeasureAsync(Uri target, int connections, TimeSpan duration, CancellationToken cancellationToken)
    {
        try
        {
            return (await RunAsync(target, connections, duration, cancellationToken))?.RequestsPerSecond;
        }
        catch (InvalidOperationException)
        {
            return null;
        }
    }

    /// <summary>
    /// Parses wrk 4's report (with <c>--latency</c>): null when <paramref name="output"/> has no
    /// "Requests/sec" line, i.e. wrk failed. Times are "us", "ms", "s", "m" or "h"; sizes "B", "KB", "MB",
    /// "GB", "TB", "PB", 1024-based (wrk's units.c).
    /// </summary>
    public static WrkResult? Parse(string output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var rate = RequestsPerSecondLine().Match(output);
        var transfer = TransferLine().Match(output);
        var total = TotalLine().Match(output);
        var latency = LatencyLine().Match(output);
        var threads = ThreadsLine().Match(output);
        if (!rate.Success || !transfer.Success || !total.Success || !latency.Success || !threads.Success)
        {
            return null;
        }

        double p50 = 0, p75 = 0, p90 = 0, p99 = 0;
        foreach (Match percentile in PercentileLine().Matches(output))
        {
            var seconds = Seconds(percentile.Groups[2].Value, percentile.Groups[3].Value);
            switch (percentile.Groups[1].Value)
            {
                case "50": p50 = seconds; break;
                case "75": p75 = seconds; break;
                case "90": p90 = seconds; break;
                default: p99 = seconds; break;
            }
        }

        var non2xx = Non2xxLine().Match(output);
        var socket = SocketErrorsLine().Match(output);
        return new WrkResult
        {
            Connections = int.Parse(threads.Groups[2].Value, CultureInfo.InvariantCulture),
            Requests = long.Parse(total.Groups[1].Value, CultureInfo.InvariantCulture),
            DurationSeconds = Seconds(total.Groups[2].Value, total.Groups[3].Value),
            BytesRead = (long)Math.Round(Bytes(total.Groups[4].Value, total.Groups[5].Value)),
            RequestsPerSecond = Number(rate.Groups[1].Value),
            TransferBytesPerSecond = Bytes(transfer.Groups[1].Value, transfer.Groups[2].Value),
            Latency = new Percentiles(p50, p75, p90, p99, Seconds(latency.Groups[5].Value, latency.Groups[6].Value))
            {
                Mean = Seconds(latency.Groups[1].Value, latency.Groups[2].Value),
            },
            LatencyStdevSeconds = Seconds(latency.Groups[3].Value, latency.Groups[4].Value),
            Non2xxResponses = non2xx.Success ? long.Parse(non2xx.Groups[1].Value, CultureInfo.InvariantCulture) : 0,
            ConnectErrors = socket.Success ? long.Parse(socket.Groups[1].Value, CultureInfo.InvariantCulture) : 0,
            ReadErrors = socket.Success ? long.Parse(socket.Groups[2].Value, CultureInfo.InvariantCulture) : 0,
            WriteErrors = socket.Success ? long.Parse(socket.Groups[3].Value, CultureInfo.InvariantCulture) : 0,
            Timeouts = socket.Success ? long.Parse(socket.Groups[4].Value, CultureInfo.InvariantCulture) : 0,
        };
    }

    private static double Number(string value) => double.Parse(value, NumberStyles.Float, CultureInfo.InvariantCulture);

    private static double Seconds(string value, string unit) => Number(value) * unit switch
    {
        "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1,
        "m" => 60,
        _ => 3600,
    };

    private static double Bytes(string value, string prefix) => Number(value) * prefix switch
    {
        "" => 1,
        "K" => 1024d,
        "M" => 1024d * 1024,
        "G" => 1024d * 1024 * 1024,
        "T" => 1024d * 1024 * 1024 * 1024,
        _ => 1024d * 1024 * 1024 * 1024 * 1024,
    };

    // "0m0.150000s 0m2.680000s" (dash; bash prints three decimals): minutes and seconds of user, then system time.
    [GeneratedRegex(@"^(\d+)m([0-9.]+)s (\d+)m([0-9.]+)s$", RegexOptions.Multiline)]
    private static partial Regex TimesLine();

    [GeneratedRegex(@"Requests/sec:\s+([0-9.]+)")]
    private static partial Regex RequestsPerSecondLine();

    [GeneratedRegex(@"Transfer/sec:\s+([0-9.]+)([KMGTP]?)B")]
    private static partial Regex TransferLine();

    [GeneratedRegex(@"^\s*(\d+) requests in ([0-9.]+)(us|ms|s|m|h), ([0-9.]+)([KMGTP]?)B read", RegexOptions.Multiline)]
    private static partial Regex TotalLine();

    [GeneratedRegex(@"(\d+) threads? and (\d+) connections?")]
    private static partial Regex ThreadsLine();

    // "Latency   0.86ms   2.14ms  29.64ms   96.12%" under "Thread Stats   Avg   Stdev   Max   +/- Stdev".
    [GeneratedRegex(@"^\s*Latency\s+([0-9.]+)(us|ms|s|m|h)\s+([0-9.]+)(us|ms|s|m|h)\s+([0-9.]+)(us|ms|s|m|h)", RegexOptions.Multiline)]
    private static partial Regex LatencyLine();

    // "     50%  484.00us" under "Latency Distribution"; the stdev column's "96.12%" never starts a line.
    [GeneratedRegex(@"^\s*(50|75|90|99)%\s+([0-9.]+)(us|ms|s|m|h)", RegexOptions.Multiline)]
    private static partial Regex PercentileLine();

    [GeneratedRegex(@"Non-2xx or 3xx responses:\s+(\d+)")]
    private static partial Regex Non2xxLine();

    [GeneratedRegex(@"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")]
    private static partial Regex SocketErrorsLine();
}
