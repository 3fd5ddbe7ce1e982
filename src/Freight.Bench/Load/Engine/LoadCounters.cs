using Freight.Bench.Results;

namespace Freight.Bench.Load.Engine;

/// <summary>A run's totals, updated with interlocked operations from every request.</summary>
internal sealed class LoadCounters
{
    // Status codes are three digits (RFC 9110 §15); anything else lands in slot 0.
    private const int StatusSlots = 1000;

    private readonly long[] _statusCodes = new long[StatusSlots];
    private long _responses;
    private long _socketErrors;
    private long _timeouts;
    private long _errors;
    private long _dropped;
    private long _cancelledAtEnd;
    private long _bodyBytes;
    private long _cutBodyBytes;
    private long _cutDeclaredBytes;
    private long _badResponses;
    private long _answeredBeforeBody;
    private long _bodyMismatches;
    private long _lengthFailures;
    private long _lengthMismatches;
    private long _inFlight;
    private int _workers;
    private FailureReason? _firstFailure;

    public long Responses => Volatile.Read(ref _responses);

    public long SocketErrors => Volatile.Read(ref _socketErrors);

    public long Timeouts => Volatile.Read(ref _timeouts);

    public long Errors => Volatile.Read(ref _errors);

    public long Dropped => Volatile.Read(ref _dropped);

    public long CancelledAtEnd => Volatile.Read(ref _cancelledAtEnd);

    public long BodyBytes => Volatile.Read(ref _bodyBytes);

    /// <summary>Response body bytes the requests cut at the run's end had received: read, never verified whole.</summary>
    public long CutBodyBytes => Volatile.Read(ref _cutBodyBytes);

    /// <summary>The longest Content-Length among the responses cut at the end; 0 when none had declared one.</summary>
    public long CutDeclaredBytes => Volatile.Read(ref _cutDeclaredBytes);

    /// <summary>
    /// A request cut at the run's end (<see cref="RequestFailure.CancelledAtEnd"/>, counted by <see cref="AddFailure"/>):
    /// the body bytes it had received, and its response's Content-Length (-1: no head yet, or none declared).
    /// </summary>
    public void AddCutBody(long received, long declared)
    {
        Interlocked.Add(ref _cutBodyBytes, received);
        for (var longest = Volatile.Read(ref _cutDeclaredBytes); declared > longest; longest = Volatile.Read(ref _cutDeclaredBytes))
        {
            if (Interlocked.CompareExchange(ref _cutDeclaredBytes, declared, longest) == longest)
            {
                break;
            }
        }
    }

    public long BadResponses => Volatile.Read(ref _badResponses);

    /// <summary>Of <see cref="Responses"/>, those the server answered before the request's body had gone (Kestrel's 413): their bodies were not moved.</summary>
    public long AnsweredBeforeBody => Volatile.Read(ref _answeredBeforeBody);

    public void AddAnsweredBeforeBody() => Interlocked.Increment(ref _answeredBeforeBody);

    public long BodyMismatches => Volatile.Read(ref _bodyMismatches);

    public long LengthFailures => Volatile.Read(ref _lengthFailures);

    public long LengthMismatches => Volatile.Read(ref _lengthMismatches);

    public long InFlight => Volatile.Read(ref _inFlight);

    public int Workers => Volatile.Read(ref _workers);

    public FailureReason? FirstFailure => Volatile.Read(ref _firstFailure);

    public void AddResponse(int statusCode, long bodyBytes, ResponseVerdict verdict = ResponseVerdict.Good)
    {
        Interlocked.Increment(ref _statusCodes[(uint)statusCode < StatusSlots ? statusCode : 0]);
        Interlocked.Add(ref _bodyBytes, bodyBytes);
        if (verdict != ResponseVerdict.Good)
        {
            Interlocked.Increment(ref _badResponses);
            if (verdict == ResponseVerdict.BodyMismatch)
            {
                Interlocked.Increment(ref _bodyMismatches);
            }
            else if (verdict == ResponseVerdict.LengthMismatch)
            {
                Interlocked.Increment(ref _lengthMismatches);
            }
        }

        Interlocked.Increment(ref _responses);
    }

    public void AddFailure(RequestFailure failure, Exception exception)
    {
        switch (failure)
        {
            case RequestFailure.Socket:
                Interlocked.Increment(ref _socketErrors);
                break;
            case RequestFailure.Timeout:
                Interlocked.Increment(ref _timeouts);
                break;
            case RequestFailure.Length:
                Interlocked.Increment(ref _lengthFailures);
                break;
            case RequestFailure.CancelledAtEnd:
                Interlocked.Increment(ref _cancelledAtEnd);
                return;
            default:
                Interlocked.Increment(ref _errors);
                break;
        }

        if (Volatile.Read(ref _firstFailure) is null)
        {
            NoteFirstFailure(FailureReasons.Describe(exception, failure));
        }
    }

    /// <summary>Keeps <paramref name="reason"/> as <see cref="FirstFailure"/> unless a failure came first: a request that threw, or a response not the one expected.</summary>
    public void NoteFirstFailure(FailureReason reason) => Interlocked.CompareExchange(ref _firstFailure, reason, null);

    public void AddDropped() => Interlocked.Increment(ref _dropped);

    public long EnterFlight() => Interlocked.Increment(ref _inFlight);

    public void LeaveFlight() => Interlocked.Decrement(ref _inFlight);

    public void AddWorker() => Interlocked.Increment(ref _workers);

    public void RemoveWorker() => Interlocked.Decrement(ref _workers);

    public Dictionary<int, long> StatusCodes()
    {
        var codes = new Dictionary<int, long>();
        for (var code = 0; code < StatusSlots; code++)
        {
            var count = Volatile.Read(ref _statusCodes[code]);
            if (count > 0)
            {
                codes[code] = count;
            }
        }

        return codes;
    }
}
