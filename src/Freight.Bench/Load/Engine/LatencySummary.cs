namespace Freight.Bench.Load.Engine;

/// <summary>A histogram's figures in seconds (SI, as the result JSON reports latencies).</summary>
public readonly record struct LatencySummary(
    long Count,
    double MinSeconds,
    double MeanSeconds,
    double P50Seconds,
    double P75Seconds,
    double P90Seconds,
    double P99Seconds,
    double P999Seconds,
    double MaxSeconds);
