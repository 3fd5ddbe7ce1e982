using Freight.Bench.Results;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// One response body's comparison with <see cref="ResponseExpectation"/>: fed every received slice in order,
/// it remembers the offset and whether a byte or the length has differed. A mutable struct kept in the
/// connection or the request's state machine, so comparing allocates nothing. <c>default</c> compares nothing.
/// </summary>
internal struct BodyComparison
{
    private ResponseExpectation? _expectation;
    private long _offset;
    private bool _differs;

    /// <summary>True unless the body was compared and differs (a byte, or its length, once complete).</summary>
    public readonly bool Matches => _expectation is null || (!_differs && _offset == _expectation.BodyLength);

    /// <summary>Null when <see cref="Matches"/>; otherwise why not, in words.</summary>
    public readonly FailureReason? Mismatch => Matches ? null : FailureReasons.BodyMismatch;

    /// <summary>Starts comparing the body of a response with <paramref name="statusCode"/>, if the run compares it.</summary>
    public static BodyComparison Start(ResponseExpectation? expectation, int statusCode) =>
        expectation is not null && expectation.Sha256 is null && expectation.ComparesBodyOf(statusCode)
            ? new BodyComparison { _expectation = expectation }
            : default;

    /// <summary>A declared length (Content-Length) that differs settles it at once; the bytes still pass through <see cref="Add"/>.</summary>
    public void ExpectLength(long length)
    {
        if (_expectation is not null && length != _expectation.BodyLength)
        {
            _differs = true;
        }
    }

    /// <summary>The next received body bytes; once a difference is found the rest is only counted.</summary>
    public void Add(ReadOnlySpan<byte> received)
    {
        if (_expectation is null)
        {
            return;
        }

        if (!_differs && !_expectation.SliceMatches(_offset, received))
        {
            _differs = true;
        }

        _offset += received.Length;
    }
}
