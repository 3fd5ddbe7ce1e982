namespace Freight.Bench.Tests.Progress;

/// <summary>A clock that moves only when told, and timers that fire only when told: the display's ticks are the test's.</summary>
internal sealed class ManualTime : TimeProvider
{
    private readonly List<ManualTimer> _timers = [];
    private long _ticks;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public IReadOnlyList<ManualTimer> Timers => _timers;

    public override long GetTimestamp() => _ticks;

    public void Advance(TimeSpan by) => _ticks += by.Ticks;

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(callback, state, period);
        _timers.Add(timer);
        return timer;
    }

    /// <summary>Advances the clock by <paramref name="by"/>, then fires every live timer once.</summary>
    public void Tick(TimeSpan by)
    {
        Advance(by);
        foreach (var timer in _timers)
        {
            timer.Fire();
        }
    }
}
