using System.Buffers;
using System.Diagnostics;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// Open loop (no coordinated omission): request i is due at start + i / rate and is sent then whatever
/// earlier requests are doing; its latency runs from that due time, so time spent waiting for a stalled
/// server, a free connection or a late scheduler is all counted. A request due while
/// <see cref="LoadOptions.MaxInFlight"/> are outstanding is counted as dropped, not sent.
/// </summary>
internal sealed class OpenLoopDriver
{
    /// <summary>Task.Delay's granularity on Linux and Windows is about 1 ms; the scheduler sends everything due and sleeps at least that.</summary>
    private static readonly TimeSpan MinimumSleep = TimeSpan.FromMilliseconds(1);

    private readonly LoadRun _run;
    private readonly TaskCompletionSource _drained = new(TaskCreationOptions.RunContinuationsAsynchronously);

    // The scheduler's own reference plus one per request not yet finished: zero means all done.
    private long _pending = 1;

    public OpenLoopDriver(LoadRun run) => _run = run;

    public async Task RunAsync()
    {
        var options = _run.Options;
        var runEnd = _run.IssueEnd;
        var maxRequests = options.MaxRequests ?? long.MaxValue;
        var ticksPerRequest = Stopwatch.Frequency / options.RatePerSecond!.Value;
        var stopAt = options.Duration is { } duration
            ? _run.StartTimestamp + (long)(duration.TotalSeconds * Stopwatch.Frequency)
            : long.MaxValue;

        for (long i = 0; i < maxRequests && !runEnd.IsCancellationRequested; i++)
        {
            var due = _run.StartTimestamp + (long)(i * ticksPerRequest);
            if (due >= stopAt)
            {
                break;
            }

            var wait = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), due);
            if (wait > TimeSpan.Zero)
            {
                try
                {
                    await Task.Delay(wait < MinimumSleep ? MinimumSleep : wait, runEnd);
                }
                catch (OperationCanceledException)
                {
                    break;
                }
            }

            if (_run.Counters.EnterFlight() > options.MaxInFlight)
            {
                _run.Counters.LeaveFlight();
                _run.Counters.AddDropped();
                _run.Series.RecordDropped(_run.SecondOf(due));
                continue;
            }

            Interlocked.Increment(ref _pending);
            _ = SendAsync(due);
        }

        Leave();
        await _drained.Task;
    }

    private async Task SendAsync(long due)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(LoadRun.BodyBufferBytes);
        using var request = _run.CreateRequestSource();
        try
        {
            await _run.ExecuteAsync(due, buffer, request, connection: null);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
            _run.Counters.LeaveFlight();
            Leave();
        }
    }

    private void Leave()
    {
        if (Interlocked.Decrement(ref _pending) == 0)
        {
            _drained.TrySetResult();
        }
    }
}
