using Freight.Bench.Load.Engine;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Load;

public sealed class LatencyHistogramTests
{
    private static readonly double[] Percentiles = [0, 1, 25, 50, 75, 90, 99, 99.9, 99.99, 100];

    [Theory]
    [InlineData(3)]
    [InlineData(2)]
    public void ValueAtPercentile_RandomLogSpreadValues_WithinPrecisionOfExactNearestRank(int digits)
    {
        var random = new Random(42);
        var histogram = new LatencyHistogram(LatencyHistogram.DefaultHighestTrackableMicroseconds, digits);
        var values = new List<long>();
        for (var i = 0; i < 100_000; i++)
        {
            // 1 µs to ~1000 s, spread evenly over the orders of magnitude.
            var value = (long)Math.Pow(10, random.NextDouble() * 9);
            values.Add(value);
            histogram.Record(value);
        }

        values.Sort();
        var tolerance = Math.Pow(10, -digits);
        foreach (var p in Percentiles)
        {
            var exact = ExactNearestRank(values, p);
            var measured = histogram.ValueAtPercentile(p);
            Assert.True(measured >= exact, $"p{p}: {measured} < exact {exact}");
            Assert.True(measured - exact <= exact * tolerance, $"p{p}: {measured} vs exact {exact} beyond 1e-{digits}");
        }
    }

    [Fact]
    public void MinMaxMeanCount_KnownValues_Exact()
    {
        var histogram = new LatencyHistogram();
        foreach (var value in new long[] { 1_234_567, 3, 999_999_999, 42 })
        {
            histogram.Record(value);
        }

        Assert.Equal(4, histogram.Count);
        Assert.Equal(3, histogram.MinMicroseconds);
        Assert.Equal(999_999_999, histogram.MaxMicroseconds);
        Assert.Equal((1_234_567 + 3 + 999_999_999 + 42) / 4.0, histogram.MeanMicroseconds);
        Assert.Equal(999_999_999, histogram.ValueAtPercentile(100));
        Assert.Equal(3, histogram.ValueAtPercentile(0));
    }

    [Fact]
    public void ValueAtPercentile_SmallValues_ExactBelowTwoThousandMicroseconds()
    {
        var histogram = new LatencyHistogram();
        for (long value = 1; value <= 2000; value++)
        {
            histogram.Record(value);
        }

        Assert.Equal(1000, histogram.ValueAtPercentile(50));
        Assert.Equal(1980, histogram.ValueAtPercentile(99));
        Assert.Equal(1998, histogram.ValueAtPercentile(99.9));
    }

    [Fact]
    public void Record_TimeSpan_StoredInMicroseconds()
    {
        var histogram = new LatencyHistogram();
        histogram.Record(TimeSpan.FromMilliseconds(1.5));

        Assert.Equal(1500, histogram.MaxMicroseconds);
        Assert.Equal(0.0015, histogram.Summarize().MaxSeconds, 9);
    }

    [Fact]
    public void Record_AboveHighestTrackable_CountedInTopBucketWithExactMax()
    {
        var histogram = new LatencyHistogram(highestTrackableMicroseconds: 1_000_000);
        histogram.Record(5_000_000);

        Assert.Equal(1, histogram.Count);
        Assert.Equal(5_000_000, histogram.MaxMicroseconds);
        Assert.True(histogram.ValueAtPercentile(50) >= 1_000_000);
    }

    [Fact]
    public void Merge_TwoHalves_SameAsOneHistogram()
    {
        var whole = new LatencyHistogram();
        var first = new LatencyHistogram();
        var second = new LatencyHistogram();
        var random = new Random(7);
        for (var i = 0; i < 10_000; i++)
        {
            var value = random.NextInt64(1, 10_000_000);
            whole.Record(value);
            (i % 2 == 0 ? first : second).Record(value);
        }

        first.Merge(second);

        Assert.Equal(whole.Count, first.Count);
        Assert.Equal(whole.MinMicroseconds, first.MinMicroseconds);
        Assert.Equal(whole.MaxMicroseconds, first.MaxMicroseconds);
        Assert.Equal(whole.MeanMicroseconds, first.MeanMicroseconds, 6);
        foreach (var p in Percentiles)
        {
            Assert.Equal(whole.ValueAtPercentile(p), first.ValueAtPercentile(p));
        }
    }

    [Fact]
    public void Merge_DifferentPrecision_Throws()
    {
        Assert.Throws<ArgumentException>(() => new LatencyHistogram().Merge(new LatencyHistogram(significantDigits: 2)));
    }

    [Fact]
    public void Reset_AfterRecording_Empty()
    {
        var histogram = new LatencyHistogram();
        histogram.Record(1000);
        histogram.Reset();

        Assert.Equal(0, histogram.Count);
        Assert.Equal(0, histogram.MaxMicroseconds);
        Assert.Equal(0, histogram.MinMicroseconds);
        Assert.Equal(0, histogram.ValueAtPercentile(99));
        histogram.Record(7);
        Assert.Equal(7, histogram.MinMicroseconds);
    }

    [Fact]
    public void Record_ManyThreadsAtOnce_NoCountLost()
    {
        var histogram = new LatencyHistogram();
        Parallel.For(0, 8, worker =>
        {
            for (var i = 1; i <= 50_000; i++)
            {
                histogram.Record(i);
            }
        });

        Assert.Equal(400_000, histogram.Count);
        Assert.Equal(1, histogram.MinMicroseconds);
        Assert.Equal(50_000, histogram.MaxMicroseconds);
        var p50 = histogram.ValueAtPercentile(50);
        Assert.InRange(p50, 25_000, 25_000 * 1.001);
    }

    private static long ExactNearestRank(List<long> sorted, double percentile)
    {
        var rank = (int)Math.Ceiling((decimal)percentile / 100 * sorted.Count);
        return sorted[Math.Clamp(rank, 1, sorted.Count) - 1];
    }
}
