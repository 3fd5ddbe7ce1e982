using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters.Json;
using Perfolizer.Horology;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

namespace Freight.Micro;

/// <summary>The BenchmarkDotNet configuration of a run: its job, the GB/s column, allocations, and the reports it leaves.</summary>
public static class MicroConfig
{
    public static IConfig Create(MicroOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return DefaultConfig.Instance
            .AddJob(CreateJob(options.Job).AsDefault())
            .AddColumn(new GigabytesPerSecondColumn())
            .AddDiagnoser(MemoryDiagnoser.Default)
            .AddExporter(JsonExporter.Full)
            .WithArtifactsPath(options.ArtifactsDirectory)
            .WithOptions(ConfigOptions.JoinSummary);
    }

    /// <summary>
    /// short: 2 warm-up and 5 measured iterations of 0.15 s of CPU each (about 1.5 CPU-seconds a case with the
    /// pilot stage, 33 cases), so the suite takes about 1–2 minutes on an idle 2-core machine, and proportionally
    /// longer when neighbours take the cores (the clock counts CPU time, so a busy machine stretches the run, not the
    /// figures); a 20 MiB parse (~1–10 ms) still repeats 15+ times an iteration, and the median of 5 rides out one
    /// disturbed iteration. default: BenchmarkDotNet's own counts, as many iterations as its stopping
    /// rule wants.
    /// </summary>
    private static Job CreateJob(string name) => name switch
    {
        MicroOptions.ShortJob => InThisProcess(Job.Default)
            .WithLaunchCount(1)
            .WithWarmupCount(2)
            .WithIterationCount(5)
            .WithIterationTime(TimeInterval.FromMilliseconds(150))
            .WithId(MicroOptions.ShortJob),
        MicroOptions.DefaultJob => InThisProcess(Job.Default).WithId(MicroOptions.DefaultJob),
        _ => throw new ArgumentException($"Unknown job '{name}'.", nameof(name)),
    };

    /// <summary>The clock a run uses: <see cref="ThreadCpuClock"/> where the OS has one, else BenchmarkDotNet's wall clock.</summary>
    public static string ClockTitle => ThreadCpuClock.Instance.IsAvailable ? ThreadCpuClock.Instance.Title : "wall time";

    /// <summary>
    /// Both jobs run in this process: the CPU-time clock is an object BenchmarkDotNet cannot hand to a generated
    /// per-case process, and no generated project has to be built first.
    /// </summary>
    private static Job InThisProcess(Job job)
    {
        job = job.WithToolchain(InProcessEmitToolchain.Instance);
        return ThreadCpuClock.Instance.IsAvailable ? job.WithClock(ThreadCpuClock.Instance) : job;
    }
}
