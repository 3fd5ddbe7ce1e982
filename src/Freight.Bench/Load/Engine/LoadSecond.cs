namespace Freight.Bench.Load.Engine;

/// <summary>
/// One second of a run, [Second, Second + SpanSeconds) after the start (the last one may be partial).
/// Completions are responses (any status) that finished in that second; their latencies give P50/P99.
/// Failures are socket errors, timeouts and other errors that finished in it, and its completions that failed
/// verification (a wrong status, body or length: each both a completion and a failure); Dropped are open-loop
/// requests scheduled in it but not sent. Workers (closed loop) and InFlight are sampled at the second's end;
/// seconds closed after the run ended (the last one or two) report them as 0. MovedBytes are the bytes its
/// completions moved: their response bodies, and their request bodies but for those answered before the body had gone.
/// </summary>
public readonly record struct LoadSecond(
    int Second,
    double SpanSeconds,
    long Completions,
    long Failures,
    long Dropped,
    double P50Seconds,
    double P99Seconds,
    int Workers,
    long InFlight,
    long MovedBytes = 0);
