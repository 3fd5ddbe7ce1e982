namespace Freight.Bench.Results;

/// <summary>
/// Requests a <c>freight load</c> run cut at its end (in flight when its duration elapsed): how many, the response body
/// bytes they had received (never verified whole), and the longest Content-Length among them (null: none declared one).
/// </summary>
public sealed record CutResponses(long Requests, long BodyBytesReceived, long? LongestDeclaredBytes = null);
