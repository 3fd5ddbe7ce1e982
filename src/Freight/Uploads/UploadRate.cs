using System.IO.Pipelines;
using Microsoft.AspNetCore.Http;

namespace Freight.Uploads;

/// <summary>
/// One upload body's minimum data rate, enforced by Freight where Kestrel cannot enforce it per request: on HTTP/2
/// Kestrel holds the whole connection to its rate and aborts the connection, every stream on it, with no answer. Kestrel's
/// semantics: only the time spent waiting on a body read counts (not the time the server spends writing what it read),
/// and once that time passes the grace period the body must have averaged at least the rate. A heartbeat checks it, as
/// Kestrel's does, so a body that stalls is cut too: its pending read returns canceled and the
/// <see cref="UploadBodyReader"/> reading it fails with a 408 (<see cref="TooSlow"/>), as Kestrel's HTTP/1.1 read does.
/// Dispose it when the upload ends.
/// </summary>
internal sealed class UploadRate : IDisposable
{
    // Kestrel's heartbeat checks its rates once a second too.
    private static readonly TimeSpan s_heartbeat = TimeSpan.FromSeconds(1);

    private readonly double _bytesPerSecond;
    private readonly TimeSpan _gracePeriod;
    private readonly PipeReader _body;
    private readonly TimeProvider _time;
    private readonly Lock _lock = new();
    private readonly ITimer _heartbeat;

    // Under _lock: the bytes seen, the time spent waiting on reads before the pending one, and whether one is pending
    // and since when.
    private long _bytes;
    private TimeSpan _waited;
    private bool _waiting;
    private long _waitingSince;
    private bool _ended;
    private volatile bool _cut;

    // body: Kestrel's reader of the body, whose pending read the cut cancels.
    public UploadRate(double bytesPerSecond, TimeSpan gracePeriod, PipeReader body, TimeProvider time)
    {
        _bytesPerSecond = bytesPerSecond;
        _gracePeriod = gracePeriod;
        _body = body;
        _time = time;
        _heartbeat = time.CreateTimer(static state => ((UploadRate)state!).Check(), this, s_heartbeat, s_heartbeat);
    }

    /// <summary>Whether the body fell under the rate: its reads end, and the upload is refused with a 408.</summary>
    public bool Cut => _cut;

    /// <summary>What the body's read throws once cut: the 408 Kestrel's HTTP/1.1 read throws, answered alike.</summary>
    public static BadHttpRequestException TooSlow() =>
        new("Reading the request body timed out due to data arriving too slowly.", StatusCodes.Status408RequestTimeout);

    /// <summary>A read that did not complete at once is waited on from now.</summary>
    public void Waiting()
    {
        lock (_lock)
        {
            _waiting = true;
            _waitingSince = _time.GetTimestamp();
        }
    }

    /// <summary>A read returned with <paramref name="newBytes"/> bytes not seen before; the body ended with it when <paramref name="ended"/>.</summary>
    public void Read(long newBytes, bool ended)
    {
        lock (_lock)
        {
            if (_waiting)
            {
                _waited += _time.GetElapsedTime(_waitingSince);
                _waiting = false;
            }

            _bytes += newBytes;
            _ended |= ended;
        }
    }

    public void Dispose() => _heartbeat.Dispose();

    private void Check()
    {
        lock (_lock)
        {
            // As Kestrel: only while a read waits (the server writing what it read is not the client's time), and not
            // within the grace period.
            if (_ended || _cut || !_waiting)
            {
                return;
            }

            var waited = (_waited + _time.GetElapsedTime(_waitingSince)).TotalSeconds;
            if (waited <= _gracePeriod.TotalSeconds || _bytes / waited >= _bytesPerSecond)
            {
                return;
            }

            _cut = true;
        }

        _heartbeat.Dispose();
        // Outside the lock: the read's continuation may run inline. Thread-safe on Kestrel's readers.
        _body.CancelPendingRead();
    }
}
