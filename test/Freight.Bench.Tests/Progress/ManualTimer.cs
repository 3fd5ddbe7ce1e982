namespace Freight.Bench.Tests.Progress;

/// <summary>A timer of <see cref="ManualTime"/>: its callback runs when the test fires it, never after it is disposed.</summary>
internal sealed class ManualTimer(TimerCallback callback, object? state, TimeSpan period) : ITimer
{
    public TimeSpan Period { get; private set; } = period;

    public bool Disposed { get; private set; }

    public void Fire()
    {
        if (!Disposed)
        {
            callback(state);
        }
    }

    public bool Change(TimeSpan dueTime, TimeSpan period)
    {
        Period = period;
        return !Disposed;
    }

    public void Dispose() => Disposed = true;

    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }
}
