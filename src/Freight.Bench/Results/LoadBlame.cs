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

    /// <summary>The most threads the server's process had in a /proc sample (with its workers, summed).</summary>
    public int? ServerThreadsMax { get; init; }

    /// <summary>
    /// A pre-fork server's workers, measured with <see cref="ServerProcessId"/> (its master): the descendants running its
    /// program that hold the same listening socket, or (a Node cluster's) were seen during the run holding a connection on
    /// its port. Its CPU, resident set and threads are theirs summed; null for a server of one process.
    /// </summary>
    public IReadOnlyList<int>? ServerWorkerProcessIds { get; init; }

    /// <summary>The cores the client could run on: <see cref="ClientCpuCores"/> is out of these ("95 % of 200 %").</summary>
    public int? ClientAllowedCpus { get; init; }

    /// <summary>True when the server process exited during the run (then no verdict).</summary>
    public bool? ServerExited { get; init; }

    /// <summary>The percent of the run the server's runtime was paused for GC (.NET servers).</summary>
    public double? GcTimePercent { get; init; }

    /// <summary>CPU, in cores, that processes other than the client and the server used during the run (<c>/proc/stat</c> minus the two).</summary>
    public double? OthersCpuCores { get; init; }

    /// <summary>The machine's CPUs, which <see cref="OthersCpuCores"/> is out of.</summary>
    public int? MachineCpus { get; init; }

    /// <summary><c>--through-proxy</c>: the proxy in front of the server, measured as the server is; null without it.</summary>
    public LoadProxy? Proxy { get; init; }
}

/// <summary>
/// The proxy a <c>freight load</c> run went through (<c>--through-proxy</c>): the process listening on the URL's port and
/// its workers, their CPU (in cores, 1 = one whole core, of <see cref="AllowedCpus"/>), resident set and threads summed.
/// </summary>
public sealed record LoadProxy(int ProcessId, double? CpuCores, int? AllowedCpus)
{
    /// <summary>Its workers (nginx's), measured with <see cref="ProcessId"/>, their master, as the server's; null for a proxy of one process.</summary>
    public IReadOnlyList<int>? WorkerProcessIds { get; init; }

    /// <summary>Its CPU seconds per GiB moved, once the run moved 64 MiB, as each side's.</summary>
    public double? CpuSecondsPerGiB { get; init; }

    /// <summary>
    /// <see cref="CpuSecondsPerGiB"/> of each run (<c>--runs</c>), in run order, as the server's
    /// (<see cref="SideCost.CpuSecondsPerGiBSamples"/>): what compare draws an interval from. Null where a run moved under 64 MiB.
    /// </summary>
    public IReadOnlyList<double>? CpuSecondsPerGiBSamples { get; init; }

    /// <summary>Its CPU seconds per response answered, as each side's (<see cref="SideCost.CpuSecondsPerResponse"/>).</summary>
    public double? CpuSecondsPerResponse { get; init; }

    public long? WorkingSetBytesMax { get; init; }

    public int? ThreadsMax { get; init; }

    /// <summary>True when one of its processes exited during the run (then no verdict).</summary>
    public bool? Exited { get; init; }
}
