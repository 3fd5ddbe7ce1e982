using Freight.Bench.Results;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// What a run expects of every response (<see cref="LoadOptions.ExpectedStatusCode"/>,
/// <see cref="LoadOptions.ExpectedBody"/>): built once per run, read by all its requests. Bodies are compared
/// slice by slice as they are read, against the expected bytes at the same offset, so verifying costs one
/// vectorised <see cref="MemoryExtensions.SequenceEqual{T}(ReadOnlySpan{T}, ReadOnlySpan{T})"/> per received
/// slice: no copy, no hash, no allocation.
/// </summary>
internal sealed class ResponseExpectation
{
    private readonly int? _statusCode;
    private readonly ReadOnlyMemory<byte> _body;
    private readonly bool _hasBody;

    private ResponseExpectation(int? statusCode, ReadOnlyMemory<byte>? body, byte[]? sha256, bool digestFields)
    {
        _statusCode = statusCode;
        _hasBody = body is not null || sha256 is not null;
        _body = body ?? ReadOnlyMemory<byte>.Empty;
        Sha256 = sha256;
        ChecksDigestFields = digestFields;
    }

    /// <summary>The SHA-256 compared bodies must hash to (<see cref="LoadOptions.ExpectedSha256"/>); null: their bytes are compared, if anything.</summary>
    public byte[]? Sha256 { get; }

    /// <summary>Whether responses' Content-Digest and Repr-Digest fields are checked (<see cref="LoadOptions.CheckDigestFields"/>).</summary>
    public bool ChecksDigestFields { get; }

    /// <summary>The expected body's length.</summary>
    public long BodyLength => _body.Length;

    /// <summary>Null when the run expects nothing: no check at all on the hot path.</summary>
    public static ResponseExpectation? From(LoadOptions options) =>
        options.ExpectedStatusCode is null && options.ExpectedBody is null && options.ExpectedSha256 is null && !options.CheckDigestFields
            ? null
            : new ResponseExpectation(options.ExpectedStatusCode, options.ExpectedBody, options.ExpectedSha256, options.CheckDigestFields);

    /// <summary>Whether a response with <paramref name="statusCode"/> has its body compared: the expected status, or any 2xx when none is set.</summary>
    public bool ComparesBodyOf(int statusCode) =>
        _hasBody && (_statusCode is { } expected ? statusCode == expected : statusCode is >= 200 and <= 299);

    /// <summary>
    /// Whether <paramref name="received"/>, the body bytes at <paramref name="offset"/>, equal the expected ones
    /// there; false when they run past the expected body's end.
    /// </summary>
    public bool SliceMatches(long offset, ReadOnlySpan<byte> received) =>
        offset + received.Length <= _body.Length
        && received.SequenceEqual(_body.Span.Slice((int)offset, received.Length));

    /// <summary>
    /// The verdict on a complete response; <paramref name="bodyMatches"/> is what the comparison found (true
    /// when the body was not compared).
    /// </summary>
    public ResponseVerdict Judge(int statusCode, bool bodyMatches, bool lengthMatches = true) =>
        _statusCode is { } expected && statusCode != expected ? ResponseVerdict.UnexpectedStatus
            : !lengthMatches ? ResponseVerdict.LengthMismatch
            : bodyMatches ? ResponseVerdict.Good
            : ResponseVerdict.BodyMismatch;

    /// <summary>Why a response judged <paramref name="verdict"/> (not good) failed; <paramref name="mismatch"/> is what the body's comparison said.</summary>
    public FailureReason Explain(ResponseVerdict verdict, int statusCode, FailureReason? mismatch) => verdict switch
    {
        ResponseVerdict.UnexpectedStatus => FailureReasons.UnexpectedStatus(statusCode, _statusCode!.Value),
        ResponseVerdict.LengthMismatch => FailureReasons.LengthMismatch,
        _ => mismatch ?? FailureReasons.BodyMismatch,
    };
}
