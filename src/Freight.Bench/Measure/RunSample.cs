using Freight.Lab.Metrics;

namespace Freight.Bench.Measure;

/// <summary>One measured run of a scenario: its transfers, and both sides' counters before and after.</summary>
public sealed record RunSample(
    long Bytes,
    int Transfers,
    double Seconds,
    double? MedianTimeToFirstByteSeconds,
    double ClientCpuSeconds,
    long ClientAllocatedBytes,
    RuntimeSnapshot? ServerBefore,
    RuntimeSnapshot? ServerAfter,
    double? StoreCpuSeconds = null,
    long? ServerInstructions = null)
{
    private const double GiB = 1024d * 1024 * 1024;

    public double BytesPerSecond => Bytes / Seconds;

    /// <summary>The client's CPU seconds per GiB moved in this run.</summary>
    public double ClientCpuSecondsPerGiB => ClientCpuSeconds / (Bytes / GiB);

    /// <summary>The server's CPU seconds per GiB moved in this run; null without both snapshots.</summary>
    public double? ServerCpuSecondsPerGiB => ServerBefore is null || ServerAfter is null ? null : (ServerAfter.CpuSeconds - ServerBefore.CpuSeconds) / (Bytes / GiB);

    /// <summary>
    /// Instructions the server process retired over this run (<c>perf stat -e instructions</c> attached to it), per
    /// byte moved; null where the machine offers no such count (<see cref="PerfStat"/>).
    /// </summary>
    public double? ServerInstructionsPerByte => ServerInstructions is { } instructions && Bytes > 0 ? instructions / (double)Bytes : null;

    /// <summary>
    /// The server's instructions per byte over <paramref name="runs"/> (their instructions over their bytes), and each
    /// run's; both null unless every run was counted (a partial count would be of other runs than the row's figures).
    /// </summary>
    public static (double? Total, IReadOnlyList<double>? PerRun) ServerInstructionsPerByteOf(IReadOnlyList<RunSample> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        long instructions = 0, bytes = 0;
        var perRun = new double[runs.Count];
        for (var i = 0; i < runs.Count; i++)
        {
            if (runs[i].ServerInstructions is not { } counted || runs[i].ServerInstructionsPerByte is not { } perByte)
            {
                return (null, null);
            }

            instructions += counted;
            bytes += runs[i].Bytes;
            perRun[i] = perByte;
        }

        return runs.Count == 0 ? (null, null) : (instructions / (double)bytes, perRun);
    }
}
