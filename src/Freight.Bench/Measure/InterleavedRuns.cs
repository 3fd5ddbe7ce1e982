using System.Diagnostics;
using Freight.Bench.Load;
using Freight.Bench.Progress;

namespace Freight.Bench.Measure;

/// <summary>The samples of every scenario's runs, and the scenarios that failed (with why).</summary>
public sealed record InterleavedResult<TScenario, TSample>(Dictionary<TScenario, List<TSample>> Samples, Dictionary<TScenario, string> Failures)
    where TScenario : notnull;

/// <summary>
/// How every suite measures: one untimed warm-up of each scenario, then run 1 of every scenario, run 2 of
/// every scenario, … so drift on a shared machine spreads over all rows alike. A scenario whose transfer
/// does not verify (or cannot be made) fails: it is measured no more and yields no number.
/// </summary>
public static class InterleavedRuns
{
    /// <summary>The seconds <see cref="RunAsync"/> plans for <paramref name="scenarios"/> scenarios: a warm-up and every run of each.</summary>
    public static double PlannedSeconds(int scenarios, BenchOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return scenarios * (options.WarmupSeconds + (options.Runs * options.RunSeconds));
    }

    /// <param name="describe">A scenario's id and label, as rows and messages name it.</param>
    public static async Task<InterleavedResult<TScenario, TSample>> RunAsync<TScenario, TSample>(
        IReadOnlyList<TScenario> scenarios,
        BenchOptions options,
        IBenchProgress progress,
        Func<TScenario, (string Id, string Label)> describe,
        Func<TScenario, double, Task<TSample>> measure)
        where TScenario : notnull
    {
        ArgumentNullException.ThrowIfNull(scenarios);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(progress);
        ArgumentNullException.ThrowIfNull(describe);
        ArgumentNullException.ThrowIfNull(measure);
        var samples = scenarios.ToDictionary(s => s, _ => new List<TSample>());
        var failures = new Dictionary<TScenario, string>();
        if (scenarios.Count == 0)
        {
            return new(samples, failures);
        }

        foreach (var scenario in scenarios)
        {
            await MeasureOrFailAsync(scenario, options.WarmupSeconds, null, "warm-up");
        }

        for (var run = 1; run <= options.Runs; run++)
        {
            var clock = Stopwatch.StartNew();
            foreach (var scenario in scenarios)
            {
                await MeasureOrFailAsync(scenario, options.RunSeconds, samples[scenario], $"run {run}/{options.Runs}");
            }

            progress.RunFinished(run, options.Runs, clock.Elapsed);
        }

        return new(samples, failures);

        async Task MeasureOrFailAsync(TScenario scenario, double seconds, List<TSample>? into, string phase)
        {
            if (failures.ContainsKey(scenario))
            {
                return;
            }

            var (id, label) = describe(scenario);
            progress.StepStarted(new ProgressStep(id, label, phase, seconds) { Begins = into is null });
            try
            {
                var sample = await measure(scenario, seconds);
                into?.Add(sample);
            }
            catch (Exception failure) when (failure is VerificationException or HttpRequestException or IOException or TaskCanceledException)
            {
                failures[scenario] = failure.Message;
                progress.Live.AddFailed();
                progress.Line($"FAILED {id} ({label}): {failure.Message}");
            }
        }
    }
}
