using System.Collections.Concurrent;
using System.IO.Pipelines;
using System.Net;
using Freight.AspNetCore.Errors;
using Freight.Uploads;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;

namespace Freight.AspNetCore.Files;

/// <summary>
/// Counts uploads in flight per client address; past the limit a new one gets 429 (RFC 6585 §4) with Retry-After.
/// Follows each upload's body too (<see cref="Follow"/>, which taking a slot does): read on through the host's
/// graceful stop, and cut by it (<see cref="Hosting.StoppingUploads"/>) and answered before Kestrel resets its connection.
/// </summary>
internal sealed class UploadLimiter(FilesOptions options)
{
    private readonly ConcurrentDictionary<IPAddress, int> _inFlight = new();

    // Per upload, not per chunk: one add and one remove for a body of megabytes. Kestrel's reader, which the cut cancels.
    private readonly ConcurrentDictionary<HttpContext, PipeReader> _bodies = new();

    // Set by the cut: the followed bodies' reads come back canceled for it alone.
    private readonly UploadStop _stop = new();

    /// <summary>Uploads in flight, all clients'.</summary>
    public int InFlight => _bodies.Count;

    /// <summary>
    /// Whether the host's stop cut the uploads in flight (<see cref="CutAll"/>): a request that fails from now on ended
    /// because the server is stopping, not because its client went away.
    /// </summary>
    public bool StopCut => _stop.Requested;

    /// <summary>Takes a slot for the request's client, or throws 429. Dispose the result when the upload ends.</summary>
    public Slot Enter(HttpContext context) => TryEnter(context, out var slot) is { } refusal ? throw refusal : slot;

    /// <summary>
    /// Takes a slot for the request's client (dispose it when the upload ends), or returns the 429 to answer, not
    /// thrown: a client past its limit can send these at will.
    /// </summary>
    public ProblemException? TryEnter(HttpContext context, out Slot slot)
    {
        ArgumentNullException.ThrowIfNull(context);
        var client = context.Connection.RemoteIpAddress ?? IPAddress.None;
        var count = _inFlight.AddOrUpdate(client, 1, static (_, n) => n + 1);
        if (count > options.MaxConcurrentUploadsPerClient)
        {
            Leave(client);
            slot = default;
            return new ProblemException(StatusCodes.Status429TooManyRequests, "Too many uploads",
                $"This client already has {options.MaxConcurrentUploadsPerClient} uploads in flight; retry when one ends.",
                new Dictionary<string, string> { ["Retry-After"] = "1" });
        }

        slot = new Slot(this, client, Follow(context));
        return null;
    }

    /// <summary>
    /// Follows the request's body for the host's stop, without a slot (the uploads the per-client limit does not
    /// count: the lab's, a <see cref="Freight.AspNetCore.Uploads.FreightMultipart"/> route's): from here on its
    /// <see cref="HttpRequest.BodyReader"/> is an <see cref="UploadBodyReader"/>, read on through the stop until its cut.
    /// The request's stream (<see cref="HttpRequest.Body"/>) never sees Kestrel's own cancels, and is cut alike: Kestrel's
    /// stream, but for one that leaves the body readable after the cut (<see cref="FollowedBodyStream"/>), so that Kestrel
    /// reads off the rest after the 503. A chunked HTTP/1.1 body is held to the request's limit by Freight's count
    /// (<see cref="ChunkedBodyLimit"/>), so that its 413 can read off the rest as any refusal does. Dispose the result
    /// when the upload ends.
    /// </summary>
    /// <param name="context">The request, its body not read yet.</param>
    /// <param name="rated">
    /// Whether the body is read through <see cref="HttpRequest.BodyReader"/> alone, so that on HTTP/2 Freight holds it to
    /// <see cref="FilesOptions.MinUploadRate"/> in place of Kestrel (<see cref="UploadRate"/>); false for a handler that
    /// reads <see cref="HttpRequest.Body"/>, which the rate would not see: it keeps Kestrel's.
    /// </param>
    public Following Follow(HttpContext context, bool rated = true)
    {
        ArgumentNullException.ThrowIfNull(context);
        var request = context.Request;
        if (request.BodyReader is UploadBodyReader)
        {
            return default; // followed already, by whoever disposes it
        }

        ChunkedBodyLimit.TakeOver(context);
        var body = request.BodyReader;
        var rate = rated ? RateOf(context, body) : null;
        context.Features.Set<IRequestBodyPipeFeature>(new FollowedBody(new UploadBodyReader(body, _stop, rate)));
        request.Body = new FollowedBodyStream(body, context.Features.Get<IHttpBodyControlFeature>());
        _bodies[context] = body;
        if (_stop.Requested)
        {
            // Began as the stop cut the others: its next read ends it as theirs did.
            body.CancelPendingRead();
        }

        return new Following(this, context, rate);
    }

    /// <summary>
    /// The minimum rate of an HTTP/2 body, Freight's instead of Kestrel's: Kestrel enforces its rate on HTTP/2 only per
    /// connection, over all its streams, and aborts the whole connection (every request on it, none answered); it lets a
    /// stream out of it (MinDataRate null, the one value its HTTP/2 feature takes) before the body is read. Freight then
    /// holds the stream alone to the same rate and answers it the 408 an HTTP/1.1 request gets. HTTP/1.1 keeps Kestrel's
    /// per-request rate, whose 408 also ends the connection as a body left unread needs.
    /// </summary>
    private UploadRate? RateOf(HttpContext context, PipeReader body)
    {
        if (options.MinUploadRate is not { } rate
            || !HttpProtocol.IsHttp2(context.Request.Protocol)
            || context.Features.Get<IHttpMinRequestBodyDataRateFeature>() is not { } kestrels)
        {
            return null;
        }

        kestrels.MinDataRate = null;
        return new UploadRate(rate.BytesPerSecond, rate.GracePeriod, body, TimeProvider.System);
    }

    /// <summary>
    /// Cuts every upload in flight: each one's pending (or next) body read returns canceled, its handler throws, and the
    /// problem middleware answers 503 (<see cref="StopCut"/>); its store write is aborted as for any failure. Returns
    /// how many were cut.
    /// </summary>
    public int CutAll()
    {
        _stop.Request();
        var cut = 0;
        foreach (var (_, body) in _bodies)
        {
            // Thread-safe on Kestrel's readers (HTTP/1.x and HTTP/2 both cancel a Pipe's read under its lock).
            body.CancelPendingRead();
            cut++;
        }

        return cut;
    }

    private void Leave(IPAddress client)
    {
        if (_inFlight.AddOrUpdate(client, 0, static (_, n) => n - 1) <= 0)
        {
            _inFlight.TryRemove(new KeyValuePair<IPAddress, int>(client, 0));
        }
    }

    public readonly struct Slot(UploadLimiter limiter, IPAddress client, Following body) : IDisposable
    {
        // A default slot (none was taken) leaves nothing.
        public void Dispose()
        {
            if (limiter is not null)
            {
                body.Dispose();
                limiter.Leave(client);
            }
        }
    }

    public readonly struct Following(UploadLimiter limiter, HttpContext context, UploadRate? rate) : IDisposable
    {
        // A default one (the body was followed already) leaves that to its own.
        public void Dispose()
        {
            rate?.Dispose();
            limiter?._bodies.TryRemove(context, out _);
        }
    }

    private sealed class FollowedBody(PipeReader reader) : IRequestBodyPipeFeature
    {
        public PipeReader Reader => reader;
    }
}
