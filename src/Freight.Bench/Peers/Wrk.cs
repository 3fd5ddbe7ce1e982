using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Freight.Bench.Peers;

/// <summary>
/// wrk, the C load generator, as a second opinion on the load engine: same endpoint, same connections,
/// same run. Used only when installed (<c>scripts/install-peers.sh</c>); the bench installs nothing.
/// </summary>
public static partial class Wrk
{
    /// <summary>Requests/s wrk reaches, or null when wrk is not on PATH or printed no rate.</summary>
    public static async Task<double?> MeasureAsync(Uri target, int connections, TimeSpan duration, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(target);
        var path = FindOnPath("wrk");
        if (path is null)
        {
            return null;
        }

        // One thread: the machine has two cores and the server needs the other.
        var start = new ProcessStartInfo(path)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "-t1", $"-c{connections}", $"-d{Math.Max(1, (int)duration.TotalSeconds)}s", target.ToString() })
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        var output = await process.StandardOutput.ReadToEndAsync(cancellationToken);
        await process.WaitForExitAsync(cancellationToken);
        var match = RequestsPerSecond().Match(output);
        return match.Success ? double.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture) : null;
    }

    private static string? FindOnPath(string name) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "")
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(directory => Path.Combine(directory, name))
            .FirstOrDefault(File.Exists);

    [GeneratedRegex(@"Requests/sec:\s+([0-9.]+)")]
    private static partial Regex RequestsPerSecond();
}
