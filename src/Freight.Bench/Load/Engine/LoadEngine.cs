using System.Diagnostics;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// Runs one load test against one URI: closed loop (constant or ramped workers) or open loop (constant
/// rate, latency from each request's scheduled time), bounded by a duration and/or a request count.
/// It always stops: the duration or the caller's token cancels everything in flight, and a count-bounded
/// run waits for its last request, which its own timeout bounds.
/// </summary>
public static class LoadEngine
{
    /// <summary>
    /// How long after a second ends it is closed: completions stamped in it but recorded a moment later
    /// (a busy thread pool) still count. 250 ms is far above a loaded 2-core machine's scheduling delay
    /// and keeps progress output under half a second behind.
    /// </summary>
    private static readonly TimeSpan SecondGrace = TimeSpan.FromMilliseconds(250);

    /// <summary>
    /// Runs the load described by <paramref name="options"/> and returns what happened. Cancelling
    /// <paramref name="cancellationToken"/> ends the run early; the partial result is returned, with
    /// <see cref="LoadStopReason.Cancelled"/>, rather than thrown away.
    /// </summary>
    public static async Task<LoadResult> RunAsync(LoadOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();

        using var run = new LoadRun(options, cancellationToken);
        using var stopTicker = new CancellationTokenSource();
        run.Start();
        options.Monitor?.Attach(run.Counters);
        var ticker = TickAsync(run, stopTicker.Token);

        if (options.Mode == LoadMode.OpenLoop)
        {
            await new OpenLoopDriver(run).RunAsync();
        }
        else
        {
            await new ClosedLoopDriver(run).RunAsync();
        }

        var end = Stopwatch.GetTimestamp();
        var elapsed = Stopwatch.GetElapsedTime(run.StartTimestamp, end);
        await stopTicker.CancelAsync();
        await ticker;
        FlushSeries(run, elapsed);

        var counters = run.Counters;
        return new LoadResult
        {
            Mode = options.Mode,
            StopReason = cancellationToken.IsCancellationRequested ? LoadStopReason.Cancelled
                : run.IssueEnd.IsCancellationRequested ? LoadStopReason.Duration
                : LoadStopReason.MaxRequests,
            Elapsed = elapsed,
            Responses = counters.Responses,
            StatusCodes = counters.StatusCodes(),
            SocketErrors = counters.SocketErrors,
            Timeouts = counters.Timeouts,
            Errors = counters.Errors,
            LengthFailures = counters.LengthFailures,
            LengthMismatches = counters.LengthMismatches,
            Dropped = counters.Dropped,
            CancelledAtEnd = counters.CancelledAtEnd,
            BodyBytes = counters.BodyBytes,
            CutBodyBytes = counters.CutBodyBytes,
            CutDeclaredBytes = counters.CutDeclaredBytes,
            BadResponses = counters.BadResponses,
            AnsweredBeforeBody = counters.AnsweredBeforeBody,
            BodyMismatches = counters.BodyMismatches,
            FirstResponseSeconds = run.FirstResponseSeconds,
            RequestsPerSecond = elapsed > TimeSpan.Zero ? counters.Responses / elapsed.TotalSeconds : 0,
            Latency = run.Histogram.Summarize(),
            Histogram = run.Histogram,
            Series = run.Series.Closed,
            FirstFailure = counters.FirstFailure,
        };
    }

    /// <summary>Samples the gauges at each second's end and closes the second after the grace period.</summary>
    private static async Task TickAsync(LoadRun run, CancellationToken stop)
    {
        var second = run.Series.NextSecond;
        while (true)
        {
            try
            {
                await DelayUntilAsync(run, second + 1, TimeSpan.Zero, stop);
                var workers = run.Counters.Workers;
                var inFlight = run.Counters.InFlight;
                await DelayUntilAsync(run, second + 1, SecondGrace, stop);
                run.Series.CloseNext(1, workers, inFlight);
                second++;
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    private static Task DelayUntilAsync(LoadRun run, int second, TimeSpan after, CancellationToken stop)
    {
        var wait = TimeSpan.FromSeconds(second) + after - Stopwatch.GetElapsedTime(run.StartTimestamp);
        return wait > TimeSpan.Zero ? Task.Delay(wait, stop) : Task.CompletedTask;
    }

    /// <summary>
    /// Closes the seconds the ticker had not closed when the run ended (no request is running any more):
    /// whole seconds always, the final partial second only if something happened in it.
    /// </summary>
    private static void FlushSeries(LoadRun run, TimeSpan elapsed)
    {
        var series = run.Series;
        var wholeSeconds = (int)Math.Floor(elapsed.TotalSeconds);
        while (series.NextSecond < wholeSeconds)
        {
            series.CloseNext(1, 0, 0);
        }

        if (series.NextSecond == wholeSeconds && series.NextHasActivity())
        {
            series.CloseNext(elapsed.TotalSeconds - wholeSeconds, 0, 0);
        }
    }
}
