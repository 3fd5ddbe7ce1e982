namespace Freight.Bench.Results;

/// <summary>
/// The verdict of <c>freight load</c>'s blame (<c>client-bound</c>, <c>server-bound</c>, <c>neither</c>,
/// <c>undetermined</c>), its reason, and its inputs: CPU in cores (1 = one whole core) over the run.
/// </summary>
public sealed record LoadBlame(
    string Verdict,
    string Reason,
    double ClientCpuCores,
    double? ServerCpuCores = null,
    int? ServerAllowedCpus = null,
    int? ServerProcessId = null,
    IReadOnlyList<double>? ThreadPoolQueueLengths = null,
    string? RuntimeCounters = null)
{
    /// <summary>The client's resident set at the start, beside <see cref="SideCost.WorkingSetBytesMax"/>: growth shows a body held in memory.</summary>
    public long? ClientWorkingSetBytesFirst { get; init; }

    /// <summary>The most threads the server's process had in a /proc sample.</summary>
    public int? ServerThreadsMax { get; init; }
}
