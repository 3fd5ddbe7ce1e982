namespace Freight.Bench.Progress;

/// <summary>A suite's live counters at one moment: bytes moved, verified transfers or responses, failures.</summary>
public readonly record struct LiveReading(long Bytes, long Verified, long Failed)
{
    /// <summary>Transfers or responses done, verified or not.</summary>
    public long Done => Verified + Failed;
}
