using System.Buffers;
using System.Diagnostics;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// Closed loop: each worker sends a request, reads the whole response, and sends the next, so a slow
/// server slows the offered load (and hides its stalls: see <see cref="OpenLoopDriver"/>). Workers are
/// started together, or added (and, ramping down, retired) on a linear ramp.
/// </summary>
internal sealed class ClosedLoopDriver
{
    /// <summary>Ramp resolution: 20 steps a second, finer than the per-second series that shows the ramp.</summary>
    private static readonly TimeSpan RampStep = TimeSpan.FromMilliseconds(50);

    /// <summary>
    /// After a failed connect (refused, no such host) a worker waits before its next request, from 10 ms doubling up
    /// to 0.5 s, until one connects: retried at once, a refused port took ~5,500 attempts a second and a whole core;
    /// this way a connection tries ~7 times in its first second, then twice a second, and finds a server
    /// that came back within half a second.
    /// </summary>
    private static readonly TimeSpan FirstConnectBackoff = TimeSpan.FromMilliseconds(10);

    private static readonly TimeSpan MaxConnectBackoff = TimeSpan.FromMilliseconds(500);

    private readonly LoadRun _run;
    private readonly long _maxRequests;
    private long _issued;
    private int _targetWorkers;

    public ClosedLoopDriver(LoadRun run)
    {
        _run = run;
        _maxRequests = run.Options.MaxRequests ?? long.MaxValue;
    }

    public async Task RunAsync()
    {
        var workers = new List<Task>();
        var issueEnd = _run.IssueEnd;
        while (true)
        {
            var target = TargetWorkers(Stopwatch.GetElapsedTime(_run.StartTimestamp).TotalSeconds);
            Volatile.Write(ref _targetWorkers, target);
            for (var index = workers.Count; index < target; index++)
            {
                workers.Add(WorkerAsync(index));
            }

            if (!_run.Options.IsRamp || target == RampEnd || issueEnd.IsCancellationRequested || TicketsExhausted)
            {
                break;
            }

            try
            {
                await Task.Delay(RampStep, issueEnd);
            }
            catch (OperationCanceledException)
            {
                break;
            }
        }

        await Task.WhenAll(workers);
    }

    private int RampEnd => _run.Options.RampTo ?? _run.Options.Connections;

    private bool TicketsExhausted => Volatile.Read(ref _issued) >= _maxRequests;

    private int TargetWorkers(double elapsedSeconds)
    {
        var options = _run.Options;
        if (!options.IsRamp)
        {
            return options.Connections;
        }

        var from = options.RampFrom ?? 0;
        var to = options.RampTo ?? 0;
        var progress = Math.Min(1, elapsedSeconds / options.RampSeconds);
        return from + (int)Math.Floor((to - from) * progress);
    }

    private static TimeSpan NextBackoff(TimeSpan last) =>
        last == TimeSpan.Zero ? FirstConnectBackoff : last * 2 < MaxConnectBackoff ? last * 2 : MaxConnectBackoff;

    /// <summary>Waits <paramref name="backoff"/>; false when the run stopped issuing requests meanwhile.</summary>
    private static async Task<bool> BackOffAsync(TimeSpan backoff, CancellationToken issueEnd)
    {
        try
        {
            await Task.Delay(backoff, issueEnd);
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    private async Task WorkerAsync(int index)
    {
        // Leave the controller's thread so all workers start at once rather than one after the other.
        await Task.Yield();
        var issueEnd = _run.IssueEnd;
        var buffer = ArrayPool<byte>.Shared.Rent(LoadRun.BodyBufferBytes);
        var request = _run.CreateRequestSource();
        var connection = _run.CreateConnection();
        var backoff = TimeSpan.Zero;
        _run.Counters.AddWorker();
        try
        {
            // A ticket per request makes a count-bounded run issue exactly MaxRequests, whatever the workers.
            while (!issueEnd.IsCancellationRequested
                && index < Volatile.Read(ref _targetWorkers)
                && Interlocked.Increment(ref _issued) <= _maxRequests)
            {
                _run.Counters.EnterFlight();
                var failedToConnect = await _run.ExecuteAsync(Stopwatch.GetTimestamp(), buffer, request, connection);
                _run.Counters.LeaveFlight();

                // Reuse the linked source (and its timer) unless its timeout fired.
                if (!request.TryReset())
                {
                    request.Dispose();
                    request = _run.CreateRequestSource();
                }

                backoff = failedToConnect ? NextBackoff(backoff) : TimeSpan.Zero;
                if (failedToConnect && !await BackOffAsync(backoff, issueEnd))
                {
                    break;
                }
            }
        }
        finally
        {
            _run.Counters.RemoveWorker();
            request.Dispose();
            connection?.Dispose();
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
