using System.Collections.Concurrent;
using System.IO.Pipelines;
using System.Net;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Files;

/// <summary>
/// Counts uploads in flight per client address; past the limit a new one gets 429 (RFC 6585 §4) with Retry-After.
/// Keeps each upload's body reader too, so that a stopping host can cut the uploads still running
/// (<see cref="Hosting.StoppingUploads"/>) and have them answered, before Kestrel resets their connections.
/// </summary>
internal sealed class UploadLimiter(FilesOptions options)
{
    private readonly ConcurrentDictionary<IPAddress, int> _inFlight = new();

    // Per upload, not per chunk: one add and one remove for a body of megabytes.
    private readonly ConcurrentDictionary<HttpContext, PipeReader> _bodies = new();

    /// <summary>Uploads in flight, all clients'.</summary>
    public int InFlight => _bodies.Count;

    /// <summary>
    /// Whether the host's stop cut the uploads in flight (<see cref="CutAll"/>): a request that fails from now on ended
    /// because the server is stopping, not because its client went away.
    /// </summary>
    public bool StopCut => Stop.Requested;

    /// <summary>Given to each upload's body source (<see cref="Freight.Uploads.PipeBodySource"/>): its reads end canceled only for this.</summary>
    public Freight.Uploads.UploadStop Stop { get; } = new();

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
            Leave(client, null);
            slot = default;
            return new ProblemException(StatusCodes.Status429TooManyRequests, "Too many uploads",
                $"This client already has {options.MaxConcurrentUploadsPerClient} uploads in flight; retry when one ends.",
                new Dictionary<string, string> { ["Retry-After"] = "1" });
        }

        var body = context.Request.BodyReader;
        _bodies[context] = body;
        if (Stop.Requested)
        {
            // Began as the stop cut the others: its next read ends it as theirs did.
            body.CancelPendingRead();
        }

        slot = new Slot(this, client, context);
        return null;
    }

    /// <summary>
    /// Cuts every upload in flight: each one's pending (or next) body read returns canceled, its handler throws, and the
    /// problem middleware answers 503 (<see cref="StopCut"/>); its store write is aborted as for any failure. Returns
    /// how many were cut.
    /// </summary>
    public int CutAll()
    {
        Stop.Request();
        var cut = 0;
        foreach (var (_, body) in _bodies)
        {
            // Thread-safe on Kestrel's readers (HTTP/1.x and HTTP/2 both cancel a Pipe's read under its lock).
            body.CancelPendingRead();
            cut++;
        }

        return cut;
    }

    private void Leave(IPAddress client, HttpContext? context)
    {
        if (context is not null)
        {
            _bodies.TryRemove(context, out _);
        }

        if (_inFlight.AddOrUpdate(client, 0, static (_, n) => n - 1) <= 0)
        {
            _inFlight.TryRemove(new KeyValuePair<IPAddress, int>(client, 0));
        }
    }

    public readonly struct Slot(UploadLimiter limiter, IPAddress client, HttpContext context) : IDisposable
    {
        // A default slot (none was taken) leaves nothing.
        public void Dispose() => limiter?.Leave(client, context);
    }
}
