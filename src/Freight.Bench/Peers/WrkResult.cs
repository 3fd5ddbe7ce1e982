using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Peers;

/// <summary>
/// One wrk run as wrk printed it (<c>--latency</c>), in SI units: seconds and bytes (wrk's binary units,
/// 1 MB = 1024² bytes, converted). wrk rounds what it prints to two decimals, so byte counts and
/// latencies carry that rounding. Latencies are over responses that came back within wrk's timeout (2 s);
/// when none did, wrk prints zeros and so do these.
/// </summary>
public sealed record WrkResult
{
    /// <summary>The connections wrk held open (its "N threads and N connections" line).</summary>
    public required int Connections { get; init; }

    /// <summary>Responses wrk read, whatever their status ("N requests in …").</summary>
    public required long Requests { get; init; }

    /// <summary>How long the run took by wrk's clock.</summary>
    public required double DurationSeconds { get; init; }

    /// <summary>Bytes wrk read, headers included ("…, 2.75GB read").</summary>
    public required long BytesRead { get; init; }

    /// <summary>"Requests/sec".</summary>
    public required double RequestsPerSecond { get; init; }

    /// <summary>"Transfer/sec" in bytes per second, headers included.</summary>
    public required double TransferBytesPerSecond { get; init; }

    /// <summary>
    /// The "Latency Distribution" percentiles (p50, p75, p90, p99), the "Thread Stats" max and, as
    /// <see cref="Percentiles.Mean"/>, its average; seconds.
    /// </summary>
    public required Percentiles Latency { get; init; }

    /// <summary>The "Thread Stats" latency standard deviation, seconds.</summary>
    public required double LatencyStdevSeconds { get; init; }

    /// <summary>
    /// wrk's "Non-2xx or 3xx responses": those neither 2xx nor 3xx (4xx, 5xx). wrk prints the line only when
    /// some came back; wrk checks no body, so this is all it verifies.
    /// </summary>
    public long Non2xxResponses { get; init; }

    /// <summary>wrk's "Socket errors: connect N": connections refused or otherwise not made.</summary>
    public long ConnectErrors { get; init; }

    /// <summary>"read N": resets and reads that failed.</summary>
    public long ReadErrors { get; init; }

    /// <summary>"write N": writes that failed (a server that went away).</summary>
    public long WriteErrors { get; init; }

    /// <summary>"timeout N": responses slower than wrk's timeout; their latency is not recorded.</summary>
    public long Timeouts { get; init; }

    /// <summary>
    /// wrk's own CPU time over the run, user + system (10 ms ticks), from the shell it ran under; null when parsed from
    /// wrk's text alone (<see cref="Wrk.Parse"/>). The client's side of a wrk row: one thread, so over ~0.9 of the run's
    /// seconds wrk held its core and the row's rate is the client's ceiling, not the server's.
    /// </summary>
    public double? CpuSeconds { get; init; }

    /// <summary>Connect, read and write errors: what the load engine counts as socket errors (timeouts apart, as it does).</summary>
    public long SocketErrors => ConnectErrors + ReadErrors + WriteErrors;
}
