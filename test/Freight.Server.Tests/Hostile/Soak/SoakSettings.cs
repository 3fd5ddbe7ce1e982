using System.Globalization;

namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>
/// How long and how hard a soak runs, from the environment so the documented 10-minute run is the CI test's
/// code: <c>FREIGHTTEST_SOAK_SECONDS</c> (60), <c>FREIGHTTEST_SOAK_MAX_REQUESTS</c> (1,000 a second of duration: a
/// bound a fast machine could reach, so the run stops by itself either way), <c>FREIGHTTEST_SOAK_CLIENTS</c> (6),
/// <c>FREIGHTTEST_SOAK_SEED</c> (16), <c>FREIGHTTEST_SOAK_REPORT</c> (a directory for the samples CSV and the summary).
/// FREIGHTTEST_, not FREIGHT_: serve reads every FREIGHT_ variable as a setting and refuses one it has no option for.
/// </summary>
internal sealed record SoakSettings(TimeSpan Duration, long MaxRequests, int Clients, int Seed, string? ReportDirectory)
{
    // Six sequential clients stay under the server's default 8 uploads in flight per client address, so a 429
    // is never expected and the soak runs the server's defaults.
    private const int DefaultClients = 6;

    /// <summary>
    /// The part of a run of <paramref name="ranSeconds"/> left out of the trend (the JIT, the thread pool and
    /// per-key state settling): a quarter, at most a minute. From the run's real length, which the request
    /// bound may have cut short.
    /// </summary>
    public static double WarmUpSeconds(double ranSeconds) => Math.Min(60, ranSeconds / 4);

    public static SoakSettings FromEnvironment()
    {
        var seconds = Number("FREIGHTTEST_SOAK_SECONDS", 60);
        return new SoakSettings(
            TimeSpan.FromSeconds(seconds),
            Number("FREIGHTTEST_SOAK_MAX_REQUESTS", seconds * 1000),
            (int)Number("FREIGHTTEST_SOAK_CLIENTS", DefaultClients),
            (int)Number("FREIGHTTEST_SOAK_SEED", 16),
            Environment.GetEnvironmentVariable("FREIGHTTEST_SOAK_REPORT") is { Length: > 0 } report ? Path.GetFullPath(report) : null);
    }

    public override string ToString() =>
        $"FREIGHTTEST_SOAK_SECONDS={Duration.TotalSeconds} FREIGHTTEST_SOAK_MAX_REQUESTS={MaxRequests} FREIGHTTEST_SOAK_CLIENTS={Clients} FREIGHTTEST_SOAK_SEED={Seed}";

    private static long Number(string name, long fallback) =>
        Environment.GetEnvironmentVariable(name) is { Length: > 0 } value ? long.Parse(value, CultureInfo.InvariantCulture) : fallback;
}
