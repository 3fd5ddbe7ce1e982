namespace Freight.Bench.Verdicts;

/// <summary>
/// 95 % confidence intervals of a goal ratio A/B, and the verdicts drawn from them.
/// <para>
/// Paired rows (run i of A and run i of B were interleaved, so both saw the same weather) use a t interval on
/// the per-pair log ratios: mean of ln(aᵢ/bᵢ) ± t(0.975, n−1)·s/√n, exponentiated. Its estimate is the
/// geometric mean of the per-pair ratios. Why this and not a bootstrap: the bench runs 3–5 runs a row, and
/// a percentile bootstrap of 5 pairs is too narrow (over 1,000 simulated draws of 5 log-normal pairs it held
/// the true ratio 84 % of the time; this interval 95.0 % over 200,000); the t interval is exact when the log ratios are normal, which is the
/// shape throughput noise has (multiplicative: a busy neighbour takes a share, not a fixed amount), and it
/// uses the pairing, which removes drift that hits both sides of a pair alike. Its assumption is the log-normal
/// noise; with n ≥ 5 a moderate departure from it costs little.
/// </para>
/// <para>
/// Rows with different run counts cannot be paired: the interval is then of the ratio of medians, by a
/// percentile bootstrap over each side apart (seeded, so a result file always gets the same interval). It
/// ignores any pairing, so it is wider; on 5 against 4 runs of independent log-normal noise it held the true
/// ratio of medians in 96 % of 1,000 simulated draws.
/// </para>
/// </summary>
public static class RatioStatistics
{
    /// <summary>The paired method's name in the result JSON.</summary>
    public const string PairedLogT = "paired-log-t";

    /// <summary>The unpaired method's name in the result JSON.</summary>
    public const string BootstrapMedians = "bootstrap-median-ratio";

    /// <summary>The across-runs method's name (<see cref="AcrossRuns"/>).</summary>
    public const string AcrossRunsLogT = "across-runs-log-t";

    /// <summary>The per-second method's name (<see cref="OfSeconds"/>).</summary>
    public const string BatchMeansLogT = "batch-means-log-t";

    /// <summary>
    /// Runs a side needs for an interval: a t interval needs a spread, so 2 (t(0.975, 1) = 12.7 makes it wide; 5, the
    /// default, is where a moderate departure from log-normal noise costs little). With 1 a goal has no interval and is
    /// read off its one figure ("met (no interval)").
    /// </summary>
    public const int MinimumRuns = 2;

    /// <summary>The intervals' confidence level.</summary>
    public const double Level = 0.95;

    /// <summary>
    /// The level of a goal's interval once adaptive runs were added to it. Looking again after every added pass and
    /// stopping at the first conclusive interval is many tests, not one: simulated (a true ratio exactly at its goal,
    /// 10 % log-normal pair noise, 20,000 draws), deciding at 95 % after each of runs 5…30 called 23 % of them met
    /// or missed. Deciding at 95 % on the minimum runs and at 99.5 % on every added pass calls 5.6 % up to 12 runs
    /// and 7.1 % up to the 30-run ceiling (0.99: 6.4 % and 8.9 %): near the 5 % of one look, for wider intervals.
    /// </summary>
    public const double AddedRunsLevel = 0.995;

    /// <summary>
    /// Bootstrap resamples: 2,000 puts the 2.5 % and 97.5 % percentiles within about ±1 % of where infinitely
    /// many would (the usual rule of thumb for percentile intervals); each costs two medians of a handful of values.
    /// </summary>
    private const int Resamples = 2000;

    /// <summary>A fixed seed: the same samples always give the same interval (issue 19, "verdicts you can trust").</summary>
    private const int BootstrapSeed = 19;

    /// <summary>
    /// The interval of A/B from the per-run values of each side (in run order): paired when both have the same
    /// count, else by bootstrap over each side. Null when either side has fewer than two runs, or a value that
    /// is not a positive finite number (no ratio, or no interval, can be drawn then).
    /// </summary>
    public static RatioInterval? Of(IReadOnlyList<double>? a, IReadOnlyList<double>? b, double level = Level)
    {
        if (a is null || b is null || a.Count < MinimumRuns || b.Count < MinimumRuns || !AllPositive(a) || !AllPositive(b))
        {
            return null;
        }

        return a.Count == b.Count ? Paired(a, b, level) : Unpaired(a, b, level);
    }

    /// <summary>The paired t interval on the log ratios (see the type's summary); both sides have the same count, at least 2.</summary>
    public static RatioInterval Paired(IReadOnlyList<double> a, IReadOnlyList<double> b, double level = Level)
    {
        ArgumentNullException.ThrowIfNull(a);
        ArgumentNullException.ThrowIfNull(b);
        if (a.Count != b.Count || a.Count < MinimumRuns)
        {
            throw new ArgumentException($"Paired runs need the same count on both sides, at least 2 (got {a.Count} and {b.Count}).", nameof(b));
        }

        var logRatios = new double[a.Count];
        for (var i = 0; i < logRatios.Length; i++)
        {
            logRatios[i] = Math.Log(a[i] / b[i]);
        }

        return LogT(logRatios, level, PairedLogT);
    }

    /// <summary>
    /// A ratio's interval across whole runs: each run's estimate of it (its own interval's centre) as one observation,
    /// a t interval on their logs — mean ± t(0.975, n−1)·s/√n, exponentiated; its estimate is their geometric mean.
    /// What it adds to one run's interval is the variation from one run to the next (a new server and client process,
    /// another moment of the machine), which the pairs inside one run share and so cannot show: over fourteen static
    /// runs of 2026-11-27 the 128 KiB ratio moved 0.89–1.18× while single runs' intervals were ±4–50 %
    /// (docs/results/2026-11-27-static-runs.md). Null with fewer than two estimates or one that is not a positive finite number.
    /// </summary>
    public static RatioInterval? AcrossRuns(IReadOnlyList<double> estimates, double level = Level)
    {
        ArgumentNullException.ThrowIfNull(estimates);
        if (estimates.Count < MinimumRuns || !AllPositive(estimates))
        {
            return null;
        }

        return LogT([.. estimates.Select(e => Math.Log(e))], level, AcrossRunsLogT);
    }

    /// <summary>
    /// The interval of A/B from one run a side, each with its per-second values (a <c>freight load</c> result's series: the
    /// seconds' completions, or their p50). Seconds of one run are autocorrelated — a slow second comes among slow ones
    /// (a GC, a neighbour's burst, a drift as the machine fills) — so a t interval over them as if independent is too
    /// narrow. Batch means instead: each run's n seconds are cut into batches of ⌊√n⌋ seconds (the usual batch size for an
    /// autocorrelated series; the leftover seconds are the first ones, connecting, and are dropped), whose means are near
    /// independent once a batch outlasts the correlation, and the interval is Welch's on the batch means' logs:
    /// exp(mean ln A − mean ln B ± t(0.975, k−1)·√(s²_A/k_A + s²_B/k_B)), k the smaller batch count (Welch's degrees of
    /// freedom are never fewer, so the interval errs wide). Its estimate is the ratio of the batch means' geometric means.
    /// Simulated (two 10-second runs of one mean, each second's log noise AR(1), 2,000 draws): at φ = 0.5 it held the truth
    /// in 97 % (30-second runs: 94 %), a t interval over the seconds as if independent in 79 % (74 %); at φ = 0.8, 88 % (85 %)
    /// against 50 % (48 %). Runs as repeats would be better still; <c>freight load</c> makes one.
    /// It holds the noise within the two runs only, not how much a second run of the same command differs, which one run
    /// a side cannot show: <c>freight compare</c> also asks for a change beyond that (docs/load.md, Comparing runs).
    /// Null with fewer than 2 batches a side, or a batch mean that is not a positive finite number (seconds with no response).
    /// </summary>
    public static RatioInterval? OfSeconds(IReadOnlyList<double> a, IReadOnlyList<double> b)
    {
        ArgumentNullException.ThrowIfNull(a);
        ArgumentNullException.ThrowIfNull(b);
        var batchesA = BatchMeanLogs(a);
        var batchesB = BatchMeanLogs(b);
        if (batchesA is null || batchesB is null)
        {
            return null;
        }

        var (meanA, varianceA) = MeanAndVariance(batchesA);
        var (meanB, varianceB) = MeanAndVariance(batchesB);
        var k = Math.Min(batchesA.Length, batchesB.Length);
        var halfWidth = StudentT.Quantile(Level, k - 1) * Math.Sqrt((varianceA / batchesA.Length) + (varianceB / batchesB.Length));
        var difference = meanA - meanB;
        return new RatioInterval(Math.Exp(difference), Math.Exp(difference - halfWidth), Math.Exp(difference + halfWidth), k, BatchMeansLogT);
    }

    /// <summary>The logs of <paramref name="seconds"/>' batch means (<see cref="OfSeconds"/>); null with fewer than 2 batches or one not positive.</summary>
    private static double[]? BatchMeanLogs(IReadOnlyList<double> seconds)
    {
        var size = Math.Max(1, (int)Math.Sqrt(seconds.Count));
        var count = seconds.Count / size;
        if (count < MinimumRuns)
        {
            return null;
        }

        var skipped = seconds.Count - (count * size);
        var logs = new double[count];
        for (var batch = 0; batch < count; batch++)
        {
            var sum = 0.0;
            for (var i = 0; i < size; i++)
            {
                sum += seconds[skipped + (batch * size) + i];
            }

            var mean = sum / size;
            if (!(mean > 0) || !double.IsFinite(mean))
            {
                return null;
            }

            logs[batch] = Math.Log(mean);
        }

        return logs;
    }

    private static (double Mean, double Variance) MeanAndVariance(double[] values)
    {
        var mean = values.Average();
        return (mean, values.Sum(v => (v - mean) * (v - mean)) / (values.Length - 1));
    }

    /// <summary>The t interval on <paramref name="logs"/> (at least 2): mean ± t(level, n−1)·s/√n, exponentiated.</summary>
    private static RatioInterval LogT(double[] logs, double level, string method)
    {
        var n = logs.Length;
        var mean = logs.Average();
        var squares = logs.Sum(log => (log - mean) * (log - mean));
        var halfWidth = StudentT.Quantile(level, n - 1) * Math.Sqrt(squares / (n - 1)) / Math.Sqrt(n);
        return new RatioInterval(Math.Exp(mean), Math.Exp(mean - halfWidth), Math.Exp(mean + halfWidth), n, method) { Level = level };
    }

    /// <summary>
    /// The percentile bootstrap of median(A)/median(B), each side resampled apart; its estimate is the ratio of
    /// the medians. <see cref="RatioInterval.Runs"/> is the smaller side's count.
    /// </summary>
    public static RatioInterval Unpaired(IReadOnlyList<double> a, IReadOnlyList<double> b, double level = Level)
    {
        ArgumentNullException.ThrowIfNull(a);
        ArgumentNullException.ThrowIfNull(b);
        if (a.Count < MinimumRuns || b.Count < MinimumRuns)
        {
            throw new ArgumentException($"A bootstrap needs at least 2 runs a side (got {a.Count} and {b.Count}).", nameof(b));
        }

        var random = new Random(BootstrapSeed);
        var ratios = new double[Resamples];
        var resampledA = new double[a.Count];
        var resampledB = new double[b.Count];
        for (var r = 0; r < Resamples; r++)
        {
            ratios[r] = MedianOfResample(a, resampledA, random) / MedianOfResample(b, resampledB, random);
        }

        Array.Sort(ratios);
        var tail = (1 - level) / 2;
        return new RatioInterval(Median(a) / Median(b), Percentile(ratios, tail), Percentile(ratios, 1 - tail), Math.Min(a.Count, b.Count), BootstrapMedians) { Level = level };
    }

    /// <summary>
    /// The verdict on a goal: for a "≥" goal (speed), met when the lower bound is at least the goal, missed when
    /// the upper bound is under it; for a "≤" goal (<paramref name="lowerIsBetter"/>: a cost) the mirror, met when
    /// the upper bound is at most the goal, missed when the lower bound is over it. Otherwise inconclusive.
    /// </summary>
    public static GoalVerdict Verdict(RatioInterval interval, double goal, bool lowerIsBetter)
    {
        ArgumentNullException.ThrowIfNull(interval);
        if (lowerIsBetter)
        {
            return interval.High <= goal ? GoalVerdict.Met : interval.Low > goal ? GoalVerdict.Missed : GoalVerdict.Inconclusive;
        }

        return interval.Low >= goal ? GoalVerdict.Met : interval.High < goal ? GoalVerdict.Missed : GoalVerdict.Inconclusive;
    }

    /// <summary>
    /// The A/A check: the same thing measured as A and as B must give an interval that holds 1.0. One that does
    /// not means the run's noise (or a bias between interleaved slots) is larger than its intervals admit, and
    /// the run's verdicts are not to be trusted. By construction a sound run still fails it 5 % of the time.
    /// </summary>
    public static bool IsUnreliable(RatioInterval aa)
    {
        ArgumentNullException.ThrowIfNull(aa);
        return !aa.Contains(1.0);
    }

    private static bool AllPositive(IReadOnlyList<double> values)
    {
        for (var i = 0; i < values.Count; i++)
        {
            if (!(values[i] > 0) || !double.IsFinite(values[i]))
            {
                return false;
            }
        }

        return true;
    }

    private static double MedianOfResample(IReadOnlyList<double> values, double[] into, Random random)
    {
        for (var i = 0; i < into.Length; i++)
        {
            into[i] = values[random.Next(values.Count)];
        }

        Array.Sort(into);
        return MedianOfSorted(into);
    }

    /// <summary>The median of <paramref name="values"/> (at least one).</summary>
    public static double Median(IReadOnlyList<double> values)
    {
        ArgumentNullException.ThrowIfNull(values);
        var sorted = new double[values.Count];
        for (var i = 0; i < sorted.Length; i++)
        {
            sorted[i] = values[i];
        }

        Array.Sort(sorted);
        return MedianOfSorted(sorted);
    }

    private static double MedianOfSorted(double[] sorted)
    {
        var middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /// <summary>The <paramref name="q"/> quantile of sorted values, interpolated between neighbours.</summary>
    private static double Percentile(double[] sorted, double q)
    {
        var position = q * (sorted.Length - 1);
        var below = (int)Math.Floor(position);
        var above = Math.Min(below + 1, sorted.Length - 1);
        return sorted[below] + ((position - below) * (sorted[above] - sorted[below]));
    }
}
