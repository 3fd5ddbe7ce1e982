using System.Runtime.InteropServices;
using Perfolizer.Horology;

namespace Freight.Micro;

/// <summary>
/// A BenchmarkDotNet clock that counts the CPU time of the calling thread (Linux <c>CLOCK_THREAD_CPUTIME_ID</c>, in
/// nanoseconds), not wall time. On a 2-core machine shared with other work, a wall clock also counts the time the
/// benchmark thread waits for a core, and its figures swing with the neighbours; CPU time is what the code costs a
/// core, so GB/s over it is GB/s per core. Every operation here runs on the calling thread (the pipe and the stream
/// complete synchronously), so nothing it does is missed; a background GC's thread would be, and the allocation
/// column shows which cases could have one.
/// </summary>
public sealed partial class ThreadCpuClock : IClock
{
    public static readonly ThreadCpuClock Instance = new();

    private const int ClockThreadCpuTime = 3;

    private ThreadCpuClock()
    {
    }

    public string Title => "thread CPU time";

    public bool IsAvailable => OperatingSystem.IsLinux() && ClockGetTime(ClockThreadCpuTime, out _) == 0;

    public Frequency Frequency => Frequency.GHz;

    public long GetTimestamp()
    {
        ClockGetTime(ClockThreadCpuTime, out var time);
        return (time.Seconds * 1_000_000_000) + time.Nanoseconds;
    }

    [LibraryImport("libc", EntryPoint = "clock_gettime")]
    private static partial int ClockGetTime(int clock, out TimeSpec time);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }
}
