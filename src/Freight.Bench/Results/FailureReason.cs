namespace Freight.Bench.Results;

/// <summary>
/// Why a request failed, said twice: <see cref="Code"/> for scripts (<c>connection_refused</c>,
/// <c>tls_failed</c>; stable, lower case), <see cref="Message"/> for people, without .NET type names.
/// </summary>
public sealed record FailureReason(string Code, string Message);
