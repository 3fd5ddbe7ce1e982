using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Threads;

/// <summary>
/// <c>--suite threads</c>: study 3 — an action that blocks in <c>Thread.Sleep</c>, one that awaits
/// <c>Task.Delay</c>, and (<c>--full</c>) one that blocks on an async wait (<c>Task.Delay().Wait()</c>), each under
/// the same connection ramp on a fresh server, with the server's thread pool sampled every second.
/// </summary>
public static class ThreadsSuite
{
    public const string Name = "threads";

    /// <summary>The study's action waited one second.</summary>
    public const int StudyDelayMs = 1000;

    /// <param name="full">
    /// With sync-over-async: not one of the study's actions, in no ratio or goal, and ~18 s of the default run (its
    /// ramp, the queue it leaves, a server start), which keeps to 5 minutes without it.
    /// </param>
    public static IReadOnlyList<ThreadsScenario> Create(int rampTo, double rampSeconds, bool full = true)
    {
        List<ThreadsScenario> scenarios =
        [
            new("threads/sleep", StudyDelayMs, 1, rampTo, rampSeconds, new PublishedFigure(57, "s", 3, "max latency, backed up")),
            new("threads/delay", StudyDelayMs, 1, rampTo, rampSeconds, new PublishedFigure(1, "s", 3, "latency, ~21–22 threads")),
        ];
        if (full)
        {
            scenarios.Add(new("threads/sync-over-async", StudyDelayMs, 1, rampTo, rampSeconds));
        }

        return scenarios;
    }
}
