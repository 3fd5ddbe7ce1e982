using System.Diagnostics;
using System.Globalization;
using Freight.Bench.Load;
using Freight.Bench.Progress;

namespace Freight.Bench.Measure;

/// <summary>
/// The samples of every scenario's runs, and the scenarios that failed (with why); <see cref="Stop"/> says why the
/// runs ended and <see cref="Passes"/> how many interleaved passes were made (the minimum and any added).
/// </summary>
public sealed record InterleavedResult<TScenario, TSample>(Dictionary<TScenario, List<TSample>> Samples, Dictionary<TScenario, string> Failures)
    where TScenario : notnull
{
    public AdaptiveStop Stop { get; init; } = AdaptiveStop.Off;

    public int Passes { get; init; }

    /// <summary>True when passes were added after the minimum: the goals' verdicts are then drawn at <see cref="Verdicts.RatioStatistics.AddedRunsLevel"/>.</summary>
    public bool RunsAdded { get; init; }
}

/// <summary>
/// How every suite measures: one untimed warm-up of each scenario, then run 1 of every scenario, run 2 of
/// every scenario (each pass in its own order: <see cref="InPassOrder{TScenario}"/>), … so drift on a shared
/// machine and what one row leaves for the next spread over all rows alike. A scenario whose transfer
/// does not verify (or cannot be made) fails: it is measured no more and yields no number.
/// <para>
/// Adaptive runs: after the minimum (<see cref="BenchOptions.Runs"/>), while a goal is inconclusive, one more pass
/// is made over the goal rows and the A/A pair only (still interleaved, in each pass's order, so every goal stays
/// paired run by run), until every goal is met or missed, the suite has spent <see cref="BenchOptions.MaxSeconds"/>
/// on added passes, or a row has <see cref="MaxRuns"/> runs.
/// </para>
/// </summary>
public static class InterleavedRuns
{
    /// <summary>
    /// The hard ceiling of runs a row gets, whatever the cap: 30 runs narrow a paired interval to ~0.41 of its width
    /// at 5 (t(0.975, 29)/√30 against t(0.975, 4)/√5); past that a goal still inconclusive sits within the noise of
    /// its own goal, and more runs buy little.
    /// </summary>
    public const int MaxRuns = 30;

    /// <summary>The seconds <see cref="RunAsync"/> plans for <paramref name="scenarios"/> scenarios: a warm-up and every run of each.</summary>
    public static double PlannedSeconds(int scenarios, BenchOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return scenarios * (options.WarmupSeconds + (options.Runs * options.RunSeconds));
    }

    /// <summary>
    /// Pass <paramref name="pass"/>'s order (1-based): the rows of a Williams design, a Latin square in which every row
    /// follows every other row equally often and takes every slot equally often — over N passes for N rows when N is
    /// even, over 2N (the square, then its mirror) when N is odd; the minimum of 5 passes covers part of it, so the
    /// balance is close rather than exact. In a fixed order (or one merely rotated, which keeps each row's
    /// predecessor) a row inherited the same neighbour's leftovers every pass — the page-cache frames a 1 GiB PUT
    /// freed, a busy writeback, a warm cache — and its figure moved the same way every time: the files suite's A/A
    /// copy read 5–9 % faster than its original in every run of 2026-11-27, flagged unreliable once, and a PUT that
    /// followed another PUT paid up to twice the CPU a GiB (docs/results/2026-11-27-put-cost.md). Pairs stay
    /// paired: both rows of a ratio are measured once in every pass.
    /// </summary>
    public static IEnumerable<TScenario> InPassOrder<TScenario>(IReadOnlyList<TScenario> scenarios, int pass)
    {
        ArgumentNullException.ThrowIfNull(scenarios);
        var count = scenarios.Count;
        if (count == 0)
        {
            yield break;
        }

        // The square's first row: 0, 1, N−1, 2, N−2, …; row k adds k to each (mod N). Odd N: the mirror follows.
        var mirrored = count % 2 == 1 && ((pass - 1) / count) % 2 == 1;
        var offset = (pass - 1) % count;
        for (var slot = 0; slot < count; slot++)
        {
            var at = mirrored ? count - 1 - slot : slot;
            var first = at == 0 ? 0 : at % 2 == 1 ? (at + 1) / 2 : count - (at / 2);
            yield return scenarios[(first + offset) % count];
        }
    }

    /// <param name="describe">A scenario's id and label, as rows and messages name it.</param>
    /// <param name="goals">
    /// The suite's goals on the samples so far, judged at the given level (adaptive runs); null: the minimum runs only.
    /// Called after each pass from the minimum on, never inside one: at 95 % after the minimum, at
    /// <see cref="Verdicts.RatioStatistics.AddedRunsLevel"/> after each added pass (looking again and again needs
    /// the stricter level to keep the verdicts' error near 5 %).
    /// </param>
    /// <param name="time">The clock the time cap is read from (tests drive it with a fake measurement).</param>
    public static async Task<InterleavedResult<TScenario, TSample>> RunAsync<TScenario, TSample>(
        IReadOnlyList<TScenario> scenarios,
        BenchOptions options,
        IBenchProgress progress,
        Func<TScenario, (string Id, string Label)> describe,
        Func<TScenario, double, Task<TSample>> measure,
        Func<IReadOnlyDictionary<TScenario, List<TSample>>, double, GoalCheck<TScenario>>? goals = null,
        TimeProvider? time = null)
        where TScenario : notnull
    {
        ArgumentNullException.ThrowIfNull(scenarios);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(progress);
        ArgumentNullException.ThrowIfNull(describe);
        ArgumentNullException.ThrowIfNull(measure);
        time ??= TimeProvider.System;
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

        var minimum = Math.Min(options.Runs, MaxRuns);
        for (var run = 1; run <= minimum; run++)
        {
            var clock = Stopwatch.StartNew();
            foreach (var scenario in InPassOrder(scenarios, run))
            {
                await MeasureOrFailAsync(scenario, options.RunSeconds, samples[scenario], $"run {run}/{minimum}");
            }

            progress.RunFinished(run, minimum, clock.Elapsed);
        }

        if (goals is null || options.MaxSeconds <= 0)
        {
            return new(samples, failures) { Passes = minimum };
        }

        // Added passes: only the goal rows (and the A/A pair), in suite order.
        var passes = minimum;
        var started = time.GetTimestamp();
        var check = goals(samples, Verdicts.RatioStatistics.Level);
        var added = new HashSet<TScenario>();
        var stop = AdaptiveStop.Conclusive;
        var lastPassSeconds = 0.0;
        while (!check.Conclusive)
        {
            if (passes >= MaxRuns)
            {
                stop = AdaptiveStop.Ceiling;
                break;
            }

            // A pass that would end past the cap, judged by the last one's length, is not started: the cap bounds the
            // added time instead of where the last pass may begin (a files pass of 1 GiB rows takes 7–13 s here, so
            // "started before the cap" let a 15 s cap spend 26 s).
            var spent = time.GetElapsedTime(started).TotalSeconds;
            if (spent >= options.MaxSeconds || spent + lastPassSeconds > options.MaxSeconds)
            {
                stop = AdaptiveStop.TimeCap;
                break;
            }

            // A row once added stays added, so a goal whose rows change (the best other download) keeps its pairs.
            added.UnionWith(check.GoalRows);
            passes++;
            progress.Line(string.Create(CultureInfo.InvariantCulture, $"goals inconclusive: added run {passes} of {added.Count} goal rows ({time.GetElapsedTime(started).TotalSeconds:0} of --max-seconds {options.MaxSeconds:0} spent)"));
            var clock = Stopwatch.StartNew();
            foreach (var scenario in InPassOrder(scenarios, passes))
            {
                if (added.Contains(scenario))
                {
                    await MeasureOrFailAsync(scenario, options.RunSeconds, samples[scenario], $"added run {passes}");
                }
            }

            progress.RunFinished(passes, passes, clock.Elapsed);
            lastPassSeconds = time.GetElapsedTime(started).TotalSeconds - spent;
            check = goals(samples, Verdicts.RatioStatistics.AddedRunsLevel);
        }

        return new(samples, failures) { Stop = stop, Passes = passes, RunsAdded = passes > minimum };

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
