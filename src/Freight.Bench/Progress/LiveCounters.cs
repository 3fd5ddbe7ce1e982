using Freight.Bench.Load.Engine;

namespace Freight.Bench.Progress;

/// <summary>
/// What a suite has done so far, for the progress display: verified bytes and transfers (or responses), and
/// failures. Measuring loops add with one interlocked operation per transfer; load runs are followed through
/// <see cref="Load"/> (the engine's own counters, nothing added per request). The display reads it on its timer.
/// </summary>
public sealed class LiveCounters
{
    private long _bytes;
    private long _verified;
    private long _failed;

    /// <summary>Pass as <see cref="LoadOptions.Monitor"/>: the load runs' responses count here too.</summary>
    public LoadMonitor Load { get; } = new();

    /// <summary><paramref name="count"/> verified transfers or responses of <paramref name="bytes"/> in all.</summary>
    public void AddVerified(long bytes, long count = 1)
    {
        Interlocked.Add(ref _bytes, bytes);
        Interlocked.Add(ref _verified, count);
    }

    /// <summary>A transfer that failed or did not verify.</summary>
    public void AddFailed() => Interlocked.Increment(ref _failed);

    public LiveReading Read()
    {
        var load = Load.Read();
        return new LiveReading(
            Volatile.Read(ref _bytes) + load.BodyBytes,
            Volatile.Read(ref _verified) + load.Responses - load.BadResponses,
            Volatile.Read(ref _failed) + load.BadResponses + load.Failures);
    }
}
