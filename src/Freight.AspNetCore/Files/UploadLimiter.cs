using System.Collections.Concurrent;
using System.Net;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Files;

/// <summary>Counts uploads in flight per client address; past the limit a new one gets 429 (RFC 6585 §4) with Retry-After.</summary>
internal sealed class UploadLimiter(FilesOptions options)
{
    private readonly ConcurrentDictionary<IPAddress, int> _inFlight = new();

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

        slot = new Slot(this, client);
        return null;
    }

    private void Leave(IPAddress client)
    {
        if (_inFlight.AddOrUpdate(client, 0, static (_, n) => n - 1) <= 0)
        {
            _inFlight.TryRemove(new KeyValuePair<IPAddress, int>(client, 0));
        }
    }

    public readonly struct Slot(UploadLimiter limiter, IPAddress client) : IDisposable
    {
        // A default slot (none was taken) leaves nothing.
        public void Dispose() => limiter?.Leave(client);
    }
}
