namespace Freight.Bench.Load.Engine;

/// <summary>
/// A live, read-only view of the counters of the load runs given it (<see cref="LoadOptions.Monitor"/>), for a
/// progress display. The engine hands it the run's own counters at the start; reading them costs the requests
/// nothing (no extra interlocked operation per response). One monitor can follow several runs in a row: it
/// reports their sum.
/// </summary>
public sealed class LoadMonitor
{
    private readonly Lock _gate = new();
    private LoadCounters? _current;
    private LoadTotals _finished;

    /// <summary>The runs' totals so far, the one in progress included.</summary>
    public LoadTotals Read()
    {
        lock (_gate)
        {
            return _finished + LoadTotals.Of(_current);
        }
    }

    /// <summary>Follows <paramref name="counters"/> from now on; the run followed before is over and counts as finished.</summary>
    internal void Attach(LoadCounters counters)
    {
        lock (_gate)
        {
            _finished += LoadTotals.Of(_current);
            _current = counters;
        }
    }
}
