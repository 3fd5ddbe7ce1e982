using Freight.Lab.Metrics;

namespace Freight.Bench.Measure;

/// <summary>
/// One measured run against a Freight server: its counters just before and just after, and the wall-clock
/// times that bound it. <see cref="ServerCountersCalculator"/> turns a scenario's windows into its counters row.
/// </summary>
public sealed record MeasuredWindow(RuntimeSnapshot Before, RuntimeSnapshot After, DateTimeOffset StartedAt, DateTimeOffset EndedAt)
{
    /// <summary>Wall time of the run, in seconds.</summary>
    public double Seconds => (EndedAt - StartedAt).TotalSeconds;

    /// <summary>True when <paramref name="timestamp"/> lies in the run, both ends included.</summary>
    public bool Contains(DateTimeOffset timestamp) => timestamp >= StartedAt && timestamp <= EndedAt;
}
