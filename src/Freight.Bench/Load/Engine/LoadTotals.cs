namespace Freight.Bench.Load.Engine;

/// <summary>
/// What load runs have done: responses (bad ones included), bad responses, failed requests, response body bytes, and
/// the responses answered before their request's body had gone (no request body moved for them).
/// </summary>
public readonly record struct LoadTotals(long Responses, long BadResponses, long Failures, long BodyBytes, long AnsweredBeforeBody = 0)
{
    public static LoadTotals operator +(LoadTotals left, LoadTotals right) => new(
        left.Responses + right.Responses,
        left.BadResponses + right.BadResponses,
        left.Failures + right.Failures,
        left.BodyBytes + right.BodyBytes,
        left.AnsweredBeforeBody + right.AnsweredBeforeBody);

    internal static LoadTotals Of(LoadCounters? counters) => counters is null
        ? default
        : new(counters.Responses, counters.BadResponses, counters.SocketErrors + counters.Timeouts + counters.Errors + counters.LengthFailures, counters.BodyBytes, counters.AnsweredBeforeBody);
}
