using Freight.Lab.Metrics;

namespace Freight.Tests.Metrics;

public sealed class RuntimeSamplerTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    [Fact]
    public void TakeSample_Repeatedly_NumbersFromOneWithIncreasingTimes()
    {
        using var sampler = new RuntimeSampler();

        for (var i = 0; i < 5; i++)
        {
            sampler.TakeSample();
        }

        var samples = sampler.GetSamples(0);
        Assert.Equal([1L, 2, 3, 4, 5], samples.Select(s => s.Sequence));
        Assert.Equal(5, sampler.LastSequence);
        for (var i = 1; i < samples.Count; i++)
        {
            Assert.True(samples[i].ElapsedSeconds > samples[i - 1].ElapsedSeconds);
            Assert.True(samples[i].Timestamp >= samples[i - 1].Timestamp);
        }
    }

    [Fact]
    public void TakeSample_Always_ReadsPlausibleCounters()
    {
        using var sampler = new RuntimeSampler();

        var sample = sampler.TakeSample();

        Assert.True(sample.CpuSeconds > 0);
        Assert.True(sample.ThreadPoolThreads >= 0);
        Assert.True(sample.ThreadPoolQueueLength >= 0);
        Assert.True(sample.WorkingSetBytes > 0);
        Assert.True(sample.GcHeapBytes > 0);
        Assert.True(sample.AllocatedBytes > 0);
        if (OperatingSystem.IsLinux())
        {
            Assert.True(sample.ProcessThreads > 0);
        }
    }

    [Fact]
    public void GetSamples_AfterASequence_ReturnsOnlyNewerOnes()
    {
        using var sampler = new RuntimeSampler();
        for (var i = 0; i < 5; i++)
        {
            sampler.TakeSample();
        }

        Assert.Equal([4L, 5], sampler.GetSamples(3).Select(s => s.Sequence));
        Assert.Empty(sampler.GetSamples(5));
        Assert.Empty(sampler.GetSamples(99));
        Assert.Empty(sampler.GetSamples(long.MaxValue));
        Assert.Equal(5, sampler.GetSamples(-7).Count);
    }

    [Fact]
    public void GetSamples_BeforeTheFirstSample_IsEmpty()
    {
        using var sampler = new RuntimeSampler();

        Assert.Empty(sampler.GetSamples(0));
        Assert.Equal(0, sampler.LastSequence);
    }

    [Fact]
    public void GetSamples_MoreSamplesThanCapacity_KeepsOnlyTheLast()
    {
        using var sampler = new RuntimeSampler(new RuntimeSamplerOptions { Capacity = 3 });

        for (var i = 0; i < 7; i++)
        {
            sampler.TakeSample();
        }

        Assert.Equal([5L, 6, 7], sampler.GetSamples(0).Select(s => s.Sequence));
        Assert.Equal([5L, 6, 7], sampler.GetSamples(2).Select(s => s.Sequence));
        Assert.Equal([6L, 7], sampler.GetSamples(5).Select(s => s.Sequence));
    }

    [Fact]
    public void TakeSample_AfterBusyWork_ReportsCpuPercentWithinTheMachine()
    {
        using var sampler = new RuntimeSampler();

        for (var i = 0; i < 4; i++)
        {
            var until = Environment.TickCount64 + 20;
            var spins = 0L;
            while (Environment.TickCount64 < until)
            {
                spins++;
            }

            Assert.True(spins > 0);
            sampler.TakeSample();
        }

        foreach (var sample in sampler.GetSamples(0))
        {
            Assert.InRange(sample.CpuPercent, 0, 100.0 * Environment.ProcessorCount);
        }
    }

    [Fact]
    public void Options_OutOfRange_AreRejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new RuntimeSampler(new RuntimeSamplerOptions { Period = TimeSpan.Zero }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new RuntimeSampler(new RuntimeSamplerOptions { Capacity = 0 }));
    }

    [Fact]
    public void Start_Twice_Throws()
    {
        using var sampler = new RuntimeSampler();
        sampler.Start();

        Assert.Throws<InvalidOperationException>(sampler.Start);
    }

    [Fact]
    public void Start_ShortPeriod_SamplesOnItsOwnBackgroundThreadInSequence()
    {
        var observed = new List<Thread>();
        using var sampler = new RuntimeSampler(new RuntimeSamplerOptions { Period = TimeSpan.FromMilliseconds(50) });
        sampler.BeforeSample = () =>
        {
            lock (observed)
            {
                observed.Add(Thread.CurrentThread);
            }
        };

        sampler.Start();
        WaitForSequence(sampler, 4);

        var samples = sampler.GetSamples(0);
        Assert.True(samples.Count >= 4);
        for (var i = 1; i < samples.Count; i++)
        {
            Assert.Equal(samples[i - 1].Sequence + 1, samples[i].Sequence);
            Assert.True(samples[i].ElapsedSeconds > samples[i - 1].ElapsedSeconds);
            Assert.True(samples[i].Timestamp >= samples[i - 1].Timestamp);
            Assert.InRange(samples[i].CpuPercent, 0, 100.0 * Environment.ProcessorCount);
        }

        lock (observed)
        {
            var thread = Assert.Single(observed.Distinct());
            Assert.False(thread.IsThreadPoolThread);
            Assert.True(thread.IsBackground);
        }
    }

    [Fact]
    public void Dispose_AfterStart_EndsTheSamplingThread()
    {
        Thread? samplingThread = null;
        var sampler = new RuntimeSampler(new RuntimeSamplerOptions { Period = TimeSpan.FromMilliseconds(20) });
        sampler.BeforeSample = () => Volatile.Write(ref samplingThread, Thread.CurrentThread);
        sampler.Start();
        WaitForSequence(sampler, 1);

        sampler.Dispose();

        Assert.NotNull(samplingThread);
        Assert.False(samplingThread.IsAlive);
        var last = sampler.LastSequence;
        Assert.Equal(last, sampler.GetSamples(0)[^1].Sequence);
        sampler.Dispose();
    }

    [Fact]
    public void Start_ThreadPoolStarved_KeepsSampling()
    {
        using var sampler = new RuntimeSampler(new RuntimeSamplerOptions { Period = TimeSpan.FromMilliseconds(50) });
        sampler.Start();

        // More blocking work items than the pool has threads, each held until released (Thread.Sleep in a loop:
        // it does not tell the pool it is blocked, as study 3's action did not). While any of them has not started,
        // every pool thread is busy and the queue is backed up.
        var queued = ThreadPool.ThreadCount + 64;
        var started = 0;
        var released = false;
        try
        {
            for (var i = 0; i < queued; i++)
            {
                ThreadPool.UnsafeQueueUserWorkItem(_ =>
                {
                    Interlocked.Increment(ref started);
                    while (!Volatile.Read(ref released))
                    {
                        Thread.Sleep(5);
                    }
                }, null);
            }

            // Skip a sample that may have been read before the work items were queued.
            var before = sampler.LastSequence + 1;
            WaitForSequence(sampler, before + 3);

            Assert.True(Volatile.Read(ref started) < queued, "the pool was not starved while the samples were taken");
            Assert.All(sampler.GetSamples(before), sample => Assert.True(sample.ThreadPoolQueueLength > 0));
        }
        finally
        {
            Volatile.Write(ref released, true);
        }
    }

    // Bounded wait for a condition; the tests assert what was sampled, never how fast.
    private static void WaitForSequence(RuntimeSampler sampler, long sequence)
    {
        var deadline = DateTime.UtcNow + Patience;
        while (sampler.LastSequence < sequence)
        {
            Assert.True(DateTime.UtcNow < deadline, $"no sample {sequence} within {Patience}; last {sampler.LastSequence}");
            Thread.Sleep(10);
        }
    }
}
