using Freight.Resumable;

namespace Freight.Tests.Resumable;

/// <summary>
/// How long a takeover waits for the holder of an upload (<see cref="ResumableUploadLocks.TakeOverAsync"/>), on a clock
/// the test moves: the patience for a holder that can let go, and for one finishing the upload, as long as it said the
/// finish may take.
/// </summary>
public sealed class ResumableUploadLocksTests
{
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(5);

    [Fact]
    public async Task TakeOver_HolderThatDoesNotLetGo_AsksItAndGivesUpAfterThePatience()
    {
        var clock = new ManualClock();
        var locks = new ResumableUploadLocks(clock);
        Assert.True(locks.TryEnter("u", out var held));

        var takeover = locks.TakeOverAsync("u", s_patience, CancellationToken.None).AsTask();
        await clock.WaitingAsync(takeover, timers: 1);
        Assert.True(held.ReleaseRequested.IsCancellationRequested);
        clock.Advance(s_patience);

        Assert.Null(await takeover);
        held.Dispose();
    }

    [Fact]
    public async Task TakeOver_HolderFinishing_WaitsPastThePatienceForTheFinish()
    {
        var clock = new ManualClock();
        var locks = new ResumableUploadLocks(clock);
        Assert.True(locks.TryEnter("u", out var held));
        held.Finishing(TimeSpan.FromSeconds(30));

        var takeover = locks.TakeOverAsync("u", s_patience, CancellationToken.None).AsTask();
        await clock.WaitingAsync(takeover, timers: 1);
        clock.Advance(TimeSpan.FromSeconds(29));
        Assert.False(takeover.IsCompleted, "the takeover gave up before the finish's time was up");
        held.Dispose();

        using var holder = await takeover;
        Assert.NotNull(holder);
        Assert.True(locks.IsHeld("u"));
    }

    [Fact]
    public async Task TakeOver_HolderBeginsFinishingWhileWaitedFor_WaitsOnForTheFinish()
    {
        var clock = new ManualClock();
        var locks = new ResumableUploadLocks(clock);
        Assert.True(locks.TryEnter("u", out var held));

        var takeover = locks.TakeOverAsync("u", s_patience, CancellationToken.None).AsTask();
        await clock.WaitingAsync(takeover, timers: 1);
        held.Finishing(TimeSpan.FromSeconds(30));
        clock.Advance(s_patience);

        // The patience's wait ended: the takeover looked again and waits for the finish.
        await clock.WaitingAsync(takeover, timers: 2);
        held.Dispose();
        using var holder = await takeover;
        Assert.NotNull(holder);
    }

    [Fact]
    public async Task TakeOver_HolderFinishingPastTheTimeItGave_GivesUp()
    {
        var clock = new ManualClock();
        var locks = new ResumableUploadLocks(clock);
        Assert.True(locks.TryEnter("u", out var held));
        held.Finishing(TimeSpan.FromSeconds(30));

        var takeover = locks.TakeOverAsync("u", s_patience, CancellationToken.None).AsTask();
        await clock.WaitingAsync(takeover, timers: 1);
        clock.Advance(TimeSpan.FromSeconds(30));

        Assert.Null(await takeover);
        held.Dispose();
    }

    /// <summary>A clock that moves only when told, firing the timers whose time came; the timers it made are counted.</summary>
    private sealed class ManualClock : TimeProvider
    {
        private readonly Lock _lock = new();
        private readonly List<(long Due, TimerCallback Callback, object? State)> _timers = [];
        private long _ticks;
        private int _made;

        public override long TimestampFrequency => TimeSpan.TicksPerSecond;

        public override long GetTimestamp() => Volatile.Read(ref _ticks);

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            lock (_lock)
            {
                _timers.Add((_ticks + dueTime.Ticks, callback, state));
                _made++;
            }

            return new Timer();
        }

        /// <summary>Moves the clock on by <paramref name="by"/>, firing (once) every timer due by then.</summary>
        public void Advance(TimeSpan by)
        {
            List<(long Due, TimerCallback Callback, object? State)> due;
            lock (_lock)
            {
                _ticks += by.Ticks;
                due = _timers.FindAll(timer => timer.Due <= _ticks);
                _timers.RemoveAll(timer => timer.Due <= _ticks);
            }

            foreach (var timer in due)
            {
                timer.Callback(timer.State);
            }
        }

        /// <summary>Until <paramref name="takeover"/> waits on its <paramref name="timers"/>th timer (it must not end first).</summary>
        public async Task WaitingAsync(Task takeover, int timers)
        {
            for (var poll = 0; poll < 1000 && Volatile.Read(ref _made) < timers && !takeover.IsCompleted; poll++)
            {
                await Task.Delay(10);
            }

            Assert.False(takeover.IsCompleted, "the takeover ended instead of waiting");
            Assert.Equal(timers, Volatile.Read(ref _made));
        }

        private sealed class Timer : ITimer
        {
            public bool Change(TimeSpan dueTime, TimeSpan period) => true;

            public void Dispose()
            {
            }

            public ValueTask DisposeAsync() => ValueTask.CompletedTask;
        }
    }
}
