using System.Diagnostics;
using System.Globalization;

namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>
/// Reads <c>/proc/{pid}/status</c> (VmRSS, Threads) and counts <c>/proc/{pid}/fd</c> once a second, with the
/// workload's counters at that moment, until stopped. Linux only: the soak runs where CI runs.
/// </summary>
internal sealed class ProcessSampler(int processId, SoakCounters counters)
{
    private static readonly TimeSpan s_interval = TimeSpan.FromSeconds(1);

    private readonly List<ProcessSample> _samples = [];

    public IReadOnlyList<ProcessSample> Samples => _samples;

    /// <summary>Samples every second until <paramref name="stop"/> fires; the last sample is taken after it.</summary>
    public async Task RunAsync(CancellationToken stop)
    {
        var clock = Stopwatch.StartNew();
        using var timer = new PeriodicTimer(s_interval);
        _samples.Add(Read(clock.Elapsed));
        try
        {
            while (await timer.WaitForNextTickAsync(stop))
            {
                _samples.Add(Read(clock.Elapsed));
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }

        _samples.Add(Read(clock.Elapsed));
    }

    private ProcessSample Read(TimeSpan elapsed)
    {
        long rss = 0;
        var threads = 0;
        foreach (var line in File.ReadLines($"/proc/{processId}/status"))
        {
            if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
            {
                // "VmRSS:     123456 kB"
                rss = long.Parse(line["VmRSS:".Length..].Trim().Split(' ')[0], CultureInfo.InvariantCulture) * 1024;
            }
            else if (line.StartsWith("Threads:", StringComparison.Ordinal))
            {
                threads = int.Parse(line["Threads:".Length..].Trim(), CultureInfo.InvariantCulture);
            }
        }

        var handles = Directory.GetFileSystemEntries($"/proc/{processId}/fd").Length;
        return new ProcessSample(elapsed.TotalSeconds, rss, handles, threads, counters.Requests, counters.BytesSent, counters.BytesReceived);
    }
}
