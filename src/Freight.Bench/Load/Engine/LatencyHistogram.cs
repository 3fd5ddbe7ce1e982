using System.Numerics;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// A fixed-memory log-linear latency histogram in the manner of HdrHistogram: values in whole
/// microseconds from 0 to <see cref="HighestTrackableMicroseconds"/>, each bucket no wider than
/// 1/10^<see cref="SignificantDigits"/> of the values it holds, so every percentile is exact to that
/// relative precision. The defaults (1 µs to one hour, 3 digits) take 23,552 counters (184 KiB).
/// </summary>
/// <remarks>
/// Thread safety: <see cref="Record(long)"/> may be called from any number of threads at once (each count is
/// an interlocked increment; min and max are compare-and-swap loops), so one run shares one histogram rather
/// than merging per-worker copies — per-worker copies would cost 184 KiB per connection at 500 connections.
/// Reading while others record gives a consistent-enough snapshot (each counter is read once).
/// <see cref="Merge"/> and <see cref="Reset"/> must not run concurrently with <see cref="Record(long)"/>.
/// Values above the highest trackable value are counted in the top bucket; <see cref="MaxMicroseconds"/>
/// and <see cref="MeanMicroseconds"/> still see the real value.
/// </remarks>
public sealed class LatencyHistogram
{
    /// <summary>One hour: longer than any request timeout a run would use.</summary>
    public const long DefaultHighestTrackableMicroseconds = 3_600_000_000;

    /// <summary>Three digits: 0.1 % error, enough to tell 1.000 s from 1.001 s.</summary>
    public const int DefaultSignificantDigits = 3;

    private readonly long[] _counts;
    private readonly int _subBucketHalfCountMagnitude;
    private readonly int _subBucketHalfCount;
    private readonly long _subBucketMask;
    private readonly int _leadingZeroCountBase;
    private long _totalCount;
    private long _sum;
    private long _min = long.MaxValue;
    private long _max;

    public LatencyHistogram(
        long highestTrackableMicroseconds = DefaultHighestTrackableMicroseconds,
        int significantDigits = DefaultSignificantDigits)
    {
        // Five digits already need 2^18 counters per power of two; more would not be "fixed small memory".
        ArgumentOutOfRangeException.ThrowIfLessThan(significantDigits, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(significantDigits, 5);
        ArgumentOutOfRangeException.ThrowIfLessThan(highestTrackableMicroseconds, 2);

        HighestTrackableMicroseconds = highestTrackableMicroseconds;
        SignificantDigits = significantDigits;

        // A bucket spans [2^k, 2^(k+1)) in subBucketHalfCount linear steps; 2 * 10^digits sub-buckets make
        // every step at most value / 10^digits wide.
        long largestValueWithSingleUnitResolution = 2;
        for (var i = 0; i < significantDigits; i++)
        {
            largestValueWithSingleUnitResolution *= 10;
        }

        var subBucketCountMagnitude = 64 - BitOperations.LeadingZeroCount((ulong)(largestValueWithSingleUnitResolution - 1));
        var subBucketCount = 1 << subBucketCountMagnitude;
        _subBucketHalfCountMagnitude = subBucketCountMagnitude - 1;
        _subBucketHalfCount = subBucketCount / 2;
        _subBucketMask = subBucketCount - 1;
        _leadingZeroCountBase = 64 - _subBucketHalfCountMagnitude - 1;

        var bucketCount = 1;
        for (long smallestUntrackable = subBucketCount; smallestUntrackable <= highestTrackableMicroseconds; smallestUntrackable <<= 1)
        {
            bucketCount++;
            if (smallestUntrackable > long.MaxValue / 2)
            {
                break;
            }
        }

        _counts = new long[(bucketCount + 1) * _subBucketHalfCount];
    }

    public long HighestTrackableMicroseconds { get; }

    public int SignificantDigits { get; }

    /// <summary>Number of values recorded.</summary>
    public long Count => Volatile.Read(ref _totalCount);

    /// <summary>The smallest value recorded, exactly; 0 when empty.</summary>
    public long MinMicroseconds => Count == 0 ? 0 : Volatile.Read(ref _min);

    /// <summary>The largest value recorded, exactly (even above the trackable range); 0 when empty.</summary>
    public long MaxMicroseconds => Volatile.Read(ref _max);

    /// <summary>The exact mean of the values recorded; 0 when empty.</summary>
    public double MeanMicroseconds
    {
        get
        {
            var count = Count;
            return count == 0 ? 0 : (double)Volatile.Read(ref _sum) / count;
        }
    }

    public void Record(TimeSpan latency) => Record(latency.Ticks / TimeSpan.TicksPerMicrosecond);

    /// <summary>Records one value in microseconds; negative values (a clock step) count as 0.</summary>
    public void Record(long microseconds)
    {
        var value = Math.Max(0, microseconds);

        // Min and max first, the total last: a reader that sees the count also sees a real min.
        UpdateMin(value);
        UpdateMax(value);
        Interlocked.Increment(ref _counts[CountsIndex(Math.Min(value, HighestTrackableMicroseconds))]);
        Interlocked.Add(ref _sum, value);
        Interlocked.Increment(ref _totalCount);
    }

    /// <summary>
    /// The value at percentile <paramref name="percentile"/> (0–100) by nearest rank: the smallest recorded
    /// value with at least that share of values at or below it, reported as the top of its bucket (clamped to
    /// the exact min and max), so it is never below the true value and above it by at most the precision.
    /// </summary>
    public long ValueAtPercentile(double percentile)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(percentile, 0);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(percentile, 100);

        long total = 0;
        for (var i = 0; i < _counts.Length; i++)
        {
            total += Volatile.Read(ref _counts[i]);
        }

        if (total == 0)
        {
            return 0;
        }

        // The relative nudge keeps 99.9 % of 1000 at rank 999 although 99.9 has no exact binary form.
        var rank = (long)Math.Ceiling(percentile / 100 * total * (1 - 1e-12));
        rank = Math.Clamp(rank, 1, total);
        var min = Volatile.Read(ref _min);
        var max = Math.Max(min, Volatile.Read(ref _max));
        long cumulative = 0;
        for (var i = 0; i < _counts.Length; i++)
        {
            cumulative += Volatile.Read(ref _counts[i]);
            if (cumulative >= rank)
            {
                return Math.Clamp(HighestEquivalentValue(i), min, max);
            }
        }

        return max;
    }

    /// <summary>p50/p75/p90/p99/p99.9/max in seconds, the shape the result JSON uses.</summary>
    public LatencySummary Summarize()
    {
        const double SecondsPerMicrosecond = 1e-6;
        return new LatencySummary(
            Count,
            MinMicroseconds * SecondsPerMicrosecond,
            MeanMicroseconds * SecondsPerMicrosecond,
            ValueAtPercentile(50) * SecondsPerMicrosecond,
            ValueAtPercentile(75) * SecondsPerMicrosecond,
            ValueAtPercentile(90) * SecondsPerMicrosecond,
            ValueAtPercentile(99) * SecondsPerMicrosecond,
            ValueAtPercentile(99.9) * SecondsPerMicrosecond,
            MaxMicroseconds * SecondsPerMicrosecond);
    }

    /// <summary>Adds every value of <paramref name="other"/> (same range and precision) to this one.</summary>
    public void Merge(LatencyHistogram other)
    {
        ArgumentNullException.ThrowIfNull(other);
        if (other._counts.Length != _counts.Length || other._subBucketHalfCount != _subBucketHalfCount)
        {
            throw new ArgumentException("Histograms differ in range or precision.", nameof(other));
        }

        if (other.Count == 0)
        {
            return;
        }

        for (var i = 0; i < _counts.Length; i++)
        {
            _counts[i] += other._counts[i];
        }

        _totalCount += other._totalCount;
        _sum += other._sum;
        _min = Math.Min(_min, other._min);
        _max = Math.Max(_max, other._max);
    }

    public void Reset()
    {
        Array.Clear(_counts);
        _totalCount = 0;
        _sum = 0;
        _min = long.MaxValue;
        _max = 0;
    }

    private int CountsIndex(long value)
    {
        // HdrHistogram's indexing: the bucket is the power of two above the sub-bucket range, the
        // sub-bucket the value's top bits within it; bucket 0 uses the whole sub-bucket range, the others
        // only the upper half (the lower half is covered by the bucket below at finer resolution).
        var bucketIndex = _leadingZeroCountBase - BitOperations.LeadingZeroCount((ulong)(value | _subBucketMask));
        var subBucketIndex = (int)(value >> bucketIndex);
        return ((bucketIndex + 1) << _subBucketHalfCountMagnitude) + (subBucketIndex - _subBucketHalfCount);
    }

    private long HighestEquivalentValue(int index)
    {
        var bucketIndex = (index >> _subBucketHalfCountMagnitude) - 1;
        var subBucketIndex = (index & (_subBucketHalfCount - 1)) + _subBucketHalfCount;
        if (bucketIndex < 0)
        {
            subBucketIndex -= _subBucketHalfCount;
            bucketIndex = 0;
        }

        var lowest = (long)subBucketIndex << bucketIndex;
        return lowest + (1L << bucketIndex) - 1;
    }

    private void UpdateMin(long value)
    {
        var current = Volatile.Read(ref _min);
        while (value < current)
        {
            var seen = Interlocked.CompareExchange(ref _min, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }

    private void UpdateMax(long value)
    {
        var current = Volatile.Read(ref _max);
        while (value > current)
        {
            var seen = Interlocked.CompareExchange(ref _max, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}
