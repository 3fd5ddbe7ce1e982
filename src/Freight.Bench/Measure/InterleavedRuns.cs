using System.Diagnostics;
using Freight.Bench.Load;

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
    public static async Task<InterleavedResult<TScenario, TSample>> RunAsync<TScenario, TSample>(
        IReadOnlyList<TScenario> scenarios,
        BenchOptions options,
        TextWriter output,
        string suite,
        Func<TScenario, string> name,
        Func<TScenario, double, Task<TSample>> measure)
        where TScenario : notnull
    {
        ArgumentNullException.ThrowIfNull(scenarios);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(measure);
        var samples = scenarios.ToDictionary(s => s, _ => new List<TSample>());
        var failures = new Dictionary<TScenario, string>();
        if (scenarios.Count == 0)
        {
            return new(samples, failures);
        }

        foreach (var scenario in scenarios)
        {
            await MeasureOrFailAsync(scenario, options.WarmupSeconds, null);
        }

        for (var run = 1; run <= options.Runs; run++)
        {
            var clock = Stopwatch.StartNew();
            foreach (var scenario in scenarios)
            {
                await MeasureOrFailAsync(scenario, options.RunSeconds, samples[scenario]);
            }

            await output.WriteLineAsync($"{suite} run {run}/{options.Runs} done in {clock.Elapsed.TotalSeconds:0.0} s");
        }

        return new(samples, failures);

        async Task MeasureOrFailAsync(TScenario scenario, double seconds, List<TSample>? into)
        {
            if (failures.ContainsKey(scenario))
            {
                return;
            }

            try
            {
                var sample = await measure(scenario, seconds);
                into?.Add(sample);
            }
            catch (Exception failure) when (failure is VerificationException or HttpRequestException or IOException or TaskCanceledException)
            {
                failures[scenario] = failure.Message;
                await output.WriteLineAsync($"FAILED {name(scenario)}: {failure.Message}");
            }
        }
    }
}
