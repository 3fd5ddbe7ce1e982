using System.Diagnostics;

namespace Freight.Lab.Metrics;

/// <summary>
/// Samples the process's runtime counters (<see cref="RuntimeSnapshot"/>) every <see cref="RuntimeSamplerOptions.Period"/>
/// on a dedicated background thread and keeps the last <see cref="RuntimeSamplerOptions.Capacity"/> samples in a ring.
/// </summary>
/// <remarks>
/// The thread is its own, not the thread pool's: the sampler exists to watch thread-pool starvation
/// (study 3's <c>Thread.Sleep</c> action), and under starvation pool-based timers and work items wait
/// behind the blocked queue, so a pool-based sampler would go quiet exactly when it matters. Readers take
/// copies (<see cref="GetSamples"/>), so a late poll still gets every sample taken while the server was starved.
/// </remarks>
public sealed class RuntimeSampler : IDisposable
{
    private readonly TimeSpan _period;
    private readonly RuntimeSample[] _ring;
    private readonly Lock _ringLock = new();
    private readonly ManualResetEventSlim _stop = new();
    private readonly Stopwatch _clock = new();
    private Thread? _thread;
    private int _disposed;
    private long _failedSamples;

    // Written by the sampling thread only (or by a test calling TakeSample before Start).
    private long _lastSequence;
    private double _previousCpuSeconds;
    private TimeSpan _previousElapsed;

    public RuntimeSampler()
        : this(new RuntimeSamplerOptions())
    {
    }

    public RuntimeSampler(RuntimeSamplerOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(options.Period, TimeSpan.Zero, nameof(options.Period));
        ArgumentOutOfRangeException.ThrowIfLessThan(options.Capacity, 1, nameof(options.Capacity));
        _period = options.Period;
        _ring = new RuntimeSample[options.Capacity];
        _clock.Start();
        _previousCpuSeconds = Environment.CpuUsage.TotalTime.TotalSeconds;
    }

    public TimeSpan Period => _period;

    public int Capacity => _ring.Length;

    /// <summary>The sequence number of the newest sample; 0 before the first.</summary>
    public long LastSequence
    {
        get
        {
            lock (_ringLock)
            {
                return _lastSequence;
            }
        }
    }

    /// <summary>Samples that could not be read (the counters threw); none is expected. Sequence numbers skip no value for them.</summary>
    public long FailedSamples => Interlocked.Read(ref _failedSamples);

    /// <summary>Test hook: runs on the sampling thread just before each sample is read.</summary>
    internal Action? BeforeSample { get; set; }

    /// <summary>Starts the sampling thread; the first sample is taken one period from now.</summary>
    public void Start()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        var thread = new Thread(Run) { IsBackground = true, Name = "Freight runtime sampler" };
        if (Interlocked.CompareExchange(ref _thread, thread, null) is not null)
        {
            throw new InvalidOperationException("The sampler is already started.");
        }

        // Elapsed seconds and the first CPU % count from here.
        _clock.Restart();
        _previousElapsed = TimeSpan.Zero;
        _previousCpuSeconds = Environment.CpuUsage.TotalTime.TotalSeconds;
        thread.Start();
    }

    /// <summary>
    /// A copy of the kept samples whose sequence is greater than <paramref name="afterSequence"/>, oldest first
    /// (all of them for 0).
    /// </summary>
    public IReadOnlyList<RuntimeSample> GetSamples(long afterSequence = 0)
    {
        lock (_ringLock)
        {
            if (afterSequence >= _lastSequence)
            {
                return [];
            }

            var kept = (int)Math.Min(_lastSequence, _ring.Length);
            var oldest = _lastSequence - kept + 1;
            var first = Math.Max(oldest, afterSequence + 1);

            var samples = new RuntimeSample[_lastSequence - first + 1];
            for (var i = 0; i < samples.Length; i++)
            {
                samples[i] = _ring[(first + i - 1) % _ring.Length];
            }

            return samples;
        }
    }

    /// <summary>Stops the sampling thread and waits for it to finish its current sample.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _stop.Set();
        var thread = Volatile.Read(ref _thread);
        if (thread is not null && thread != Thread.CurrentThread)
        {
            thread.Join();
        }

        _stop.Dispose();
    }

    /// <summary>Reads the counters and appends a sample. Called by one thread at a time: the sampling thread.</summary>
    internal RuntimeSample TakeSample()
    {
        BeforeSample?.Invoke();
        var snapshot = RuntimeSnapshot.Capture();
        var elapsed = _clock.Elapsed;

        // CPU time over wall time since the previous sample. The two clocks are read a few microseconds apart,
        // so over a short period the ratio can stray just past its bounds: clamp to what the machine can do.
        var wall = (elapsed - _previousElapsed).TotalSeconds;
        var cpuPercent = wall > 0 ? 100 * (snapshot.CpuSeconds - _previousCpuSeconds) / wall : 0;
        cpuPercent = Math.Clamp(cpuPercent, 0, 100.0 * Environment.ProcessorCount);
        _previousCpuSeconds = snapshot.CpuSeconds;
        _previousElapsed = elapsed;

        lock (_ringLock)
        {
            var sample = new RuntimeSample(
                _lastSequence + 1,
                DateTimeOffset.UtcNow,
                elapsed.TotalSeconds,
                snapshot.CpuSeconds,
                cpuPercent,
                snapshot.ThreadPoolThreads,
                snapshot.ThreadPoolQueueLength,
                snapshot.CompletedWorkItems,
                snapshot.ProcessThreads,
                snapshot.WorkingSetBytes,
                snapshot.GcHeapBytes,
                snapshot.Gen0Collections,
                snapshot.Gen1Collections,
                snapshot.Gen2Collections,
                snapshot.LockContentions,
                snapshot.AllocatedBytes,
                snapshot.DiskWriteBytes,
                snapshot.ExceptionCount,
                snapshot.Gen0SizeBytes,
                snapshot.Gen1SizeBytes,
                snapshot.Gen2SizeBytes,
                snapshot.LohSizeBytes,
                snapshot.PohSizeBytes);
            _ring[(sample.Sequence - 1) % _ring.Length] = sample;
            _lastSequence = sample.Sequence;
            return sample;
        }
    }

    private void Run()
    {
        // Fixed-rate schedule (start + k × period), so the time spent sampling does not make the rhythm drift.
        var due = _clock.Elapsed + _period;
        while (!_stop.Wait(Max(due - _clock.Elapsed, TimeSpan.Zero)))
        {
            // An exception escaping a dedicated thread ends the process: metrics must never take the server down.
            try
            {
                TakeSample();
            }
            catch (Exception)
            {
                Interlocked.Increment(ref _failedSamples);
            }

            due += _period;
            var now = _clock.Elapsed;
            if (now > due)
            {
                // A whole period was missed (the process was suspended, or the machine is overloaded): resume the
                // rhythm from now instead of catching up with a burst of samples a few microseconds apart.
                due = now + _period;
            }
        }
    }

    private static TimeSpan Max(TimeSpan a, TimeSpan b) => a > b ? a : b;
}
