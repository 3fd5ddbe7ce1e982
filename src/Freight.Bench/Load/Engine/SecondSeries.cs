namespace Freight.Bench.Load.Engine;

/// <summary>
/// The per-second time series. Completions are stamped with the whole second (since the start) in which
/// they finished and recorded into that second's slot; a small ring of slots is reused so the memory stays
/// fixed however long the run. A second is closed (read, reported, its slot cleared for second + ring size)
/// a grace period after it ends, by one caller at a time (the ticker, then the end-of-run flush).
/// </summary>
/// <remarks>
/// A completion recorded more than <see cref="RingSize"/> − 1 seconds after it was stamped (a client
/// starved for seconds) is left out of the series; the run's totals and overall histogram still have it.
/// </remarks>
internal sealed class SecondSeries
{
    /// <summary>Slots in the ring: the second being filled, the one in its grace period, and slack for a late ticker.</summary>
    internal const int RingSize = 4;

    private const double SecondsPerMicrosecond = 1e-6;

    private readonly Slot[] _slots = new Slot[RingSize];
    private readonly List<LoadSecond> _closed = [];
    private readonly Action<LoadSecond>? _onSecond;

    public SecondSeries(Action<LoadSecond>? onSecond)
    {
        _onSecond = onSecond;
        for (var i = 0; i < RingSize; i++)
        {
            _slots[i] = new Slot(i);
        }
    }

    /// <summary>The first second not yet closed.</summary>
    public int NextSecond { get; private set; }

    public IReadOnlyList<LoadSecond> Closed => _closed;

    /// <summary>A response that finished in <paramref name="second"/>, and the bytes it moved (its body, and the request's when it went).</summary>
    public void RecordResponse(int second, long latencyMicroseconds, long movedBytes)
    {
        var slot = _slots[second % RingSize];
        if (Volatile.Read(ref slot.Second) == second)
        {
            slot.Histogram.Record(latencyMicroseconds);
            Interlocked.Add(ref slot.MovedBytes, movedBytes);
        }
    }

    public void RecordFailure(int second)
    {
        var slot = _slots[second % RingSize];
        if (Volatile.Read(ref slot.Second) == second)
        {
            Interlocked.Increment(ref slot.Failures);
        }
    }

    public void RecordDropped(int second)
    {
        var slot = _slots[second % RingSize];
        if (Volatile.Read(ref slot.Second) == second)
        {
            Interlocked.Increment(ref slot.Dropped);
        }
    }

    /// <summary>Closes <see cref="NextSecond"/> with gauges sampled at its end and reports it.</summary>
    public void CloseNext(double spanSeconds, int workers, long inFlight)
    {
        var second = NextSecond;
        var slot = _slots[second % RingSize];
        LoadSecond closed;
        if (Volatile.Read(ref slot.Second) == second)
        {
            var histogram = slot.Histogram;
            closed = new LoadSecond(
                second,
                spanSeconds,
                histogram.Count,
                Volatile.Read(ref slot.Failures),
                Volatile.Read(ref slot.Dropped),
                histogram.ValueAtPercentile(50) * SecondsPerMicrosecond,
                histogram.ValueAtPercentile(99) * SecondsPerMicrosecond,
                workers,
                inFlight,
                Volatile.Read(ref slot.MovedBytes));
        }
        else
        {
            // The ticker fell more than a ring behind: this second's slot was already reused.
            closed = new LoadSecond(second, spanSeconds, 0, 0, 0, 0, 0, workers, inFlight);
        }

        // Clear the slot and hand it to the second that will next map to it; writers check Second first.
        slot.Histogram.Reset();
        slot.Failures = 0;
        slot.Dropped = 0;
        slot.MovedBytes = 0;
        Volatile.Write(ref slot.Second, second + RingSize);

        NextSecond = second + 1;
        _closed.Add(closed);
        _onSecond?.Invoke(closed);
    }

    /// <summary>Whether <see cref="NextSecond"/> has any activity recorded (used to keep a partial last second).</summary>
    public bool NextHasActivity()
    {
        var slot = _slots[NextSecond % RingSize];
        return slot.Second == NextSecond
            && (slot.Histogram.Count > 0 || Volatile.Read(ref slot.Failures) > 0 || Volatile.Read(ref slot.Dropped) > 0);
    }

    private sealed class Slot(int second)
    {
        // Fields, not properties: they are updated with Interlocked by ref.
        public int Second = second;
        public long Failures;
        public long Dropped;
        public long MovedBytes;

        // Latency in microseconds of this second's responses; 3 digits as the overall histogram.
        public readonly LatencyHistogram Histogram = new();
    }
}
