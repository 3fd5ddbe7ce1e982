using System.IO.Pipelines;
using Freight.Uploads;
using Microsoft.AspNetCore.Http;

namespace Freight.Tests.Uploads;

/// <summary>
/// An HTTP/2 upload's minimum rate, as Kestrel's semantics: only the time spent waiting on the body counts, the bytes
/// count as they arrive (not once a batch is whole), and past the grace period a waiting read under the rate is cut with
/// a 408, a stalled one included. The clock and the heartbeat are the test's.
/// </summary>
public sealed class UploadRateTests
{
    private const double Rate = 64 * 1024;

    private static readonly TimeSpan s_second = TimeSpan.FromSeconds(1);

    [Fact]
    public async Task ReadAsync_StalledPastTheGracePeriod_Throws408()
    {
        var (pipe, time, reader) = Rated();
        await pipe.Writer.WriteAsync(new byte[1000]);
        var first = await reader.ReadAsync();
        reader.AdvanceTo(first.Buffer.End);
        var stalled = reader.ReadAsync().AsTask();

        for (var i = 0; i < 6; i++)
        {
            time.Tick(s_second);
        }

        var cut = await Assert.ThrowsAsync<BadHttpRequestException>(() => stalled);
        Assert.Equal(StatusCodes.Status408RequestTimeout, cut.StatusCode);
    }

    [Fact]
    public async Task ReadAtLeastAsync_BatchGatheredAboveTheRate_NotCutBeforeTheBatchIsWhole()
    {
        // 100 KiB a second towards a 1 MiB batch: the read waits 10 s, each of its bytes counted as it came.
        var (pipe, time, reader) = Rated();
        var batch = reader.ReadAtLeastAsync(1024 * 1024).AsTask();
        for (var i = 0; i < 10; i++)
        {
            await pipe.Writer.WriteAsync(new byte[100 * 1024]);
            time.Tick(s_second);
        }

        await pipe.Writer.WriteAsync(new byte[100 * 1024]);
        var result = await batch;
        Assert.True(result.Buffer.Length >= 1024 * 1024);
    }

    [Fact]
    public async Task ReadAsync_TimeNotWaitingOnTheBody_DoesNotCount()
    {
        // Every read finds its bytes there (the server is the slow side, writing to its store): no wait, no cut.
        var (pipe, time, reader) = Rated();
        for (var i = 0; i < 10; i++)
        {
            await pipe.Writer.WriteAsync(new byte[1000]);
            var result = await reader.ReadAsync();
            reader.AdvanceTo(result.Buffer.End);
            time.Tick(10 * s_second);
        }

        await pipe.Writer.CompleteAsync();
        Assert.True((await reader.ReadAsync()).IsCompleted);
    }

    private static (Pipe Pipe, ManualTime Time, UploadBodyReader Reader) Rated()
    {
        // Inline: a write runs the waiting read's continuation before the clock moves on.
        var pipe = new Pipe(new PipeOptions(readerScheduler: PipeScheduler.Inline, writerScheduler: PipeScheduler.Inline, pauseWriterThreshold: 0));
        var time = new ManualTime();
        var rate = new UploadRate(Rate, TimeSpan.FromSeconds(5), pipe.Reader, time);
        return (pipe, time, new UploadBodyReader(pipe.Reader, new UploadStop(), rate));
    }

    /// <summary>A clock that moves only when told, and timers that fire only when told.</summary>
    private sealed class ManualTime : TimeProvider
    {
        private readonly List<(TimerCallback Callback, object? State)> _timers = [];
        private long _ticks = 1;

        public override long TimestampFrequency => TimeSpan.TicksPerSecond;

        public override long GetTimestamp() => _ticks;

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            _timers.Add((callback, state));
            return new NoTimer();
        }

        /// <summary>Advances the clock by <paramref name="by"/>, then fires every timer once.</summary>
        public void Tick(TimeSpan by)
        {
            _ticks += by.Ticks;
            foreach (var (callback, state) in _timers)
            {
                callback(state);
            }
        }

        private sealed class NoTimer : ITimer
        {
            public bool Change(TimeSpan dueTime, TimeSpan period) => true;

            public void Dispose()
            {
            }

            public ValueTask DisposeAsync() => ValueTask.CompletedTask;
        }
    }
}
