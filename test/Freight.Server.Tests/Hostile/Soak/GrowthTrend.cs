namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>
/// Whether a resource grew over the measured part of a soak. The verdict is the Theil–Sen slope (the median
/// of the slopes between every pair of samples) times the measured span: the growth the trend line draws
/// across the run. A median of pairwise slopes ignores up to ~29% of wild samples (a GC that has not run yet,
/// a burst of connections) where a least-squares line or first-vs-last would swing with one of them, and a
/// leak — growth that keeps going — moves it by the leak's whole size. The medians of the first and last
/// thirds are reported beside it as a plain-words check of the same thing.
/// </summary>
internal sealed record GrowthTrend(string Metric, double Start, double End, double FirstThirdMedian, double LastThirdMedian, double SlopePerMinute, double Growth, double Tolerance)
{
    /// <summary>The trend line rises across the measured span by more than <see cref="Tolerance"/>.</summary>
    public bool Grows => Growth > Tolerance;

    public static GrowthTrend Of(string metric, IReadOnlyList<(double Seconds, double Value)> points, double tolerance)
    {
        if (points.Count < 6)
        {
            throw new ArgumentException($"{points.Count} samples of {metric} are too few for a trend.", nameof(points));
        }

        var slopes = new List<double>(points.Count * (points.Count - 1) / 2);
        for (var i = 0; i < points.Count; i++)
        {
            for (var j = i + 1; j < points.Count; j++)
            {
                var dt = points[j].Seconds - points[i].Seconds;
                if (dt > 0)
                {
                    slopes.Add((points[j].Value - points[i].Value) / dt);
                }
            }
        }

        var slope = Median(slopes);
        var span = points[^1].Seconds - points[0].Seconds;
        var third = points.Count / 3;
        return new GrowthTrend(
            metric,
            points[0].Value,
            points[^1].Value,
            Median(points.Take(third).Select(p => p.Value).ToList()),
            Median(points.Skip(points.Count - third).Select(p => p.Value).ToList()),
            slope * 60,
            slope * span,
            tolerance);
    }

    private static double Median(List<double> values)
    {
        values.Sort();
        var middle = values.Count / 2;
        return values.Count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}
