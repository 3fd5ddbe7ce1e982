using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Threads;

/// <summary>
/// <c>--suite threads</c>: study 3 — an action that blocks in <c>Thread.Sleep</c>, one that awaits
/// <c>Task.Delay</c>, and one that blocks on an async wait (<c>Task.Delay().Wait()</c>), each under the same
/// connection ramp on a fresh server, with the server's thread pool sampled every second.
/// </summary>
public static class ThreadsSuite
{
    public const string Name = "threads";

    /// <summary>The study's action waited one second.</summary>
    public const int StudyDelayMs = 1000;

    public static IReadOnlyList<ThreadsScenario> Create(int rampTo, double rampSeconds) =>
    [
        new("threads/sleep", StudyDelayMs, 1, rampTo, rampSeconds, new PublishedFigure(57, "s", 3, "max latency, backed up")),
        new("threads/delay", StudyDelayMs, 1, rampTo, rampSeconds, new PublishedFigure(1, "s", 3, "latency, ~21–22 threads")),
        new("threads/sync-over-async", StudyDelayMs, 1, rampTo, rampSeconds),
    ];
}
