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
    double? StoreCpuSeconds = null)
{
    public double BytesPerSecond => Bytes / Seconds;
}
