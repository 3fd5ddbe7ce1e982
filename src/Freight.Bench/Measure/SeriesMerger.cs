using Freight.Bench.Load.Engine;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Lab.Metrics;

namespace Freight.Bench.Measure;

/// <summary>
/// Merges one load run's per-second view (the engine's <see cref="LoadSecond"/>s) with the server's
/// in-process samples into the report's <see cref="SeriesPoint"/>s: a sample belongs to the whole second,
/// since <c>startedAt</c>, in which it was taken (the last one wins, the sampler takes one a second).
/// </summary>
public static class SeriesMerger
{
    /// <param name="seconds">The run's seconds, numbered from 0 at <paramref name="startedAt"/>.</param>
    /// <param name="samples">The server's samples; those outside the run's seconds are ignored.</param>
    /// <param name="startedAt">When the run started, on the samples' clock.</param>
    /// <param name="firstSecond">Added to each point's second, to number several runs' points as one series.</param>
    /// <param name="connections">The run's fixed concurrency; null: the workers the engine counted at each second's end.</param>
    public static List<SeriesPoint> Merge(
        IEnumerable<LoadSecond> seconds,
        IReadOnlyCollection<RuntimeSample> samples,
        DateTimeOffset startedAt,
        int firstSecond = 0,
        int? connections = null)
    {
        ArgumentNullException.ThrowIfNull(seconds);
        ArgumentNullException.ThrowIfNull(samples);
        var bySecond = new Dictionary<int, RuntimeSample>();
        foreach (var sample in samples)
        {
            bySecond[(int)Math.Floor((sample.Timestamp - startedAt).TotalSeconds)] = sample;
        }

        var points = new List<SeriesPoint>();
        foreach (var second in seconds)
        {
            var server = bySecond.GetValueOrDefault(second.Second);
            points.Add(new SeriesPoint(
                firstSecond + second.Second,
                connections ?? second.Workers,
                second.Completions,
                second.Failures,
                second.Completions > 0 ? second.P50Seconds : null,
                second.Completions > 0 ? second.P99Seconds : null,
                // -1 is a sample's "no value" (RuntimeSample): none in the series, not a count of -1.
                server?.ThreadPoolThreads is >= 0 and var threads ? threads : null,
                server?.ThreadPoolQueueLength is >= 0 and var queue ? queue : null,
                server?.CpuPercent,
                server?.ProcessThreads is >= 0 and var processThreads ? processThreads : null));
        }

        return points;
    }
}
