using Freight.Bench.Results;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// What a run did. Every issued request ends in exactly one of: a response (tallied by status code in
/// <see cref="StatusCodes"/>, 4xx/5xx included), <see cref="SocketErrors"/>, <see cref="Timeouts"/>,
/// <see cref="LengthFailures"/>, <see cref="Errors"/>, or <see cref="CancelledAtEnd"/> (in flight when the run's duration or the
/// caller's cancellation ended it: not a failure, no latency). Open-loop requests never sent because
/// <see cref="LoadOptions.MaxInFlight"/> were outstanding are <see cref="Dropped"/>.
/// Latencies are recorded for responses only.
/// </summary>
public sealed record LoadResult
{
    public required LoadMode Mode { get; init; }

    public required LoadStopReason StopReason { get; init; }

    /// <summary>From the start to the moment the last request finished or was cancelled.</summary>
    public required TimeSpan Elapsed { get; init; }

    /// <summary>Requests answered with a status code and a fully read body.</summary>
    public required long Responses { get; init; }

    public required IReadOnlyDictionary<int, long> StatusCodes { get; init; }

    /// <summary>
    /// Connection refused, reset or aborted (a <see cref="System.Net.Sockets.SocketException"/> underneath), or
    /// closed by the server before any response began. A host not found or unreachable is an <see cref="Errors"/>.
    /// </summary>
    public required long SocketErrors { get; init; }

    public required long Timeouts { get; init; }

    /// <summary>Any other failure (protocol errors, TLS, a host not found or unreachable, no local port, ...).</summary>
    public required long Errors { get; init; }

    /// <summary>Responses that ended before their Content-Length or last chunk (the server closed early): no response counted.</summary>
    public long LengthFailures { get; init; }

    /// <summary>Of <see cref="BadResponses"/>, those whose body length differed from their Content-Length.</summary>
    public long LengthMismatches { get; init; }

    public required long Dropped { get; init; }

    public required long CancelledAtEnd { get; init; }

    /// <summary>Response body bytes read, summed over all responses.</summary>
    public required long BodyBytes { get; init; }

    /// <summary>
    /// Response body bytes received by the <see cref="CancelledAtEnd"/> requests before the run cut them: not in
    /// <see cref="BodyBytes"/>, as no such body was read to its end and verified. A run of 1 GiB bodies shorter than
    /// one body's transfer received most of a GiB and completed nothing.
    /// </summary>
    public long CutBodyBytes { get; init; }

    /// <summary>The longest Content-Length among the responses cut at the end (0: none had declared one): what one would have taken.</summary>
    public long CutDeclaredBytes { get; init; }

    /// <summary>
    /// Responses that were not what the run asked for: a status other than
    /// <see cref="LoadOptions.ExpectedStatusCode"/> (when set), plus the <see cref="BodyMismatches"/>. They are
    /// still <see cref="Responses"/>, tallied in <see cref="StatusCodes"/> and recorded in <see cref="Latency"/>
    /// (one latency per response, as wrk and crank count them); a run with any is not verified.
    /// </summary>
    public long BadResponses { get; init; }

    /// <summary>
    /// Of <see cref="Responses"/>, those the server answered before the request's body had gone, then closed (Kestrel's
    /// 413 over its body limit): no request body is counted as moved for them.
    /// </summary>
    public long AnsweredBeforeBody { get; init; }

    /// <summary>
    /// Of <see cref="BadResponses"/>, those with the expected status (any 2xx when none is set) whose body
    /// differed from <see cref="LoadOptions.ExpectedBody"/> in a byte or in length.
    /// </summary>
    public long BodyMismatches { get; init; }

    /// <summary>
    /// Latency of the first response recorded in the run, in seconds: a cold connection (connect, request,
    /// whole body), as crank's "first request". Null when no response came back.
    /// </summary>
    public double? FirstResponseSeconds { get; init; }

    /// <summary>Requests that finished one way or another: responses plus failures.</summary>
    public long Completed => Responses + SocketErrors + Timeouts + Errors + LengthFailures;

    /// <summary><see cref="Responses"/> / <see cref="Elapsed"/>.</summary>
    public required double RequestsPerSecond { get; init; }

    public required LatencySummary Latency { get; init; }

    /// <summary>The run's full histogram (microseconds), for merging runs.</summary>
    public required LatencyHistogram Histogram { get; init; }

    public required IReadOnlyList<LoadSecond> Series { get; init; }

    /// <summary>Why the first failed request failed, in words and as a code, to say why errors happened.</summary>
    public FailureReason? FirstFailure { get; init; }
}
