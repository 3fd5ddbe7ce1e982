namespace Freight.Bench.Results;

/// <summary>What one side (server or client) spent over all measured runs of a scenario.</summary>
public sealed record SideCost(
    double? CpuSecondsPerGiB,
    double? AllocatedBytesPerTransfer = null,
    int? Gen0 = null,
    int? Gen1 = null,
    int? Gen2 = null,
    int? ThreadPoolThreadsMax = null,
    long? DiskBytesWritten = null,
    long? WorkingSetBytesMax = null,
    double? CpuSecondsPerResponse = null,
    double? DiskBytesWrittenPerResponse = null,
    double? StoreCpuSecondsPerGiB = null)
{
    /// <summary>Allocated bytes per transfer in each run, in run order (where a suite keeps them): what an allocation goal's interval is drawn from.</summary>
    public IReadOnlyList<double>? AllocatedBytesPerTransferRuns { get; init; }
    /// <summary>
    /// <see cref="CpuSecondsPerGiB"/> of each measured run, in run order (run i interleaved with run i of the other
    /// rows): what a cost goal's interval is drawn from. Null where the cost is not known per run.
    /// </summary>
    public IReadOnlyList<double>? CpuSecondsPerGiBSamples { get; init; }

    /// <summary>Instructions the process retired per byte moved, over every run (<c>perf stat</c>); null where the machine cannot count them.</summary>
    public double? InstructionsPerByte { get; init; }

    /// <summary><see cref="InstructionsPerByte"/> of each measured run, in run order.</summary>
    public IReadOnlyList<double>? InstructionsPerByteSamples { get; init; }
}
