using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Threads;

/// <summary>Study 3's comparison and the threads suite's goals, from one run; and the load engine against wrk on /lab/ping.</summary>
public static class ThreadsRatios
{
    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results)
    {
        ArgumentNullException.ThrowIfNull(results);
        var sleep = results.FirstOrDefault(r => r.Scenario == "threads/sleep" && r.Verified);
        var delay = results.FirstOrDefault(r => r.Scenario == "threads/delay" && r.Verified);
        yield return new RatioResult("sleep / delay, p99 latency", "threads/sleep p99", "threads/delay p99", sleep?.LatencySeconds?.P99 / delay?.LatencySeconds?.P99);
        yield return new RatioResult("sleep / delay, max thread pool threads", "threads/sleep", "threads/delay", (double?)sleep?.Server?.ThreadPoolThreadsMax / delay?.Server?.ThreadPoolThreadsMax);
        yield return new RatioResult("delay: p99 / the 1 s wait", "threads/delay p99", "1 s", delay?.LatencySeconds?.P99, Published: 1, Goal: 1.1, LowerIsBetter: true);
        yield return new RatioResult("sleep: p50 / the 1 s wait", "threads/sleep p50", "1 s", sleep?.LatencySeconds?.P50);
        yield return new RatioResult("delay: max pool threads / (2 × cores + 4)", "threads/delay", "2 × cores + 4",
            (double?)delay?.Server?.ThreadPoolThreadsMax / ((2 * Environment.ProcessorCount) + 4), Goal: 1, LowerIsBetter: true);
        var engine = results.FirstOrDefault(r => r.Scenario == ThreadsSuiteRunner.EngineCheckId);
        var wrk = results.FirstOrDefault(r => r.Scenario == "peer/wrk");
        yield return new RatioResult("engine / wrk, requests/s on /lab/ping", ThreadsSuiteRunner.EngineCheckId, "peer/wrk", engine?.RequestsPerSecond?.Median / wrk?.RequestsPerSecond?.Median, Goal: 0.7)
            .WithRuns(engine?.RequestsPerSecond?.Samples, wrk?.RequestsPerSecond?.Samples);
    }
}
