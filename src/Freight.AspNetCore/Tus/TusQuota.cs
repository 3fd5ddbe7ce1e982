using System.Net;
using Freight.Resumable;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Tus;

/// <summary>
/// What unfinished uploads may claim. A creation declares a length but stores nothing (bytes are written as
/// they arrive), so without a count a few 150-byte POSTs could promise more than the store holds: each client
/// address may hold <see cref="TusOptions.MaxUnfinishedUploadsPerClient"/> unfinished uploads (429 past it), and
/// all of them together may still expect no more bytes (declared lengths less what arrived) than
/// <see cref="TusOptions.MaxPendingBytes"/> and the store's free space less <see cref="TusOptions.MinFreeBytes"/>
/// (507 past either). The counts are kept here, per node, on creation, append, completion and removal, and
/// rebuilt from the store by every expiry sweep: at start (uploads from before a restart; creations wait for
/// it), and then every <see cref="TusOptions.SweepInterval"/> (uploads other nodes of one bucket created,
/// moved on or finished).
/// </summary>
internal sealed class TusQuota(TusOptions options, IResumableUploadStore store)
{
    // How long a client refused for holding too many unfinished uploads should wait: one of them has to finish,
    // be terminated or expire first, which takes a chunk's time at best — retrying sooner only adds requests.
    private const string RetryAfterSeconds = "60";

    private readonly Lock _lock = new();
    private readonly Dictionary<string, Entry> _uploads = new(StringComparer.Ordinal);
    private readonly Dictionary<string, int> _perClient = new(StringComparer.Ordinal);

    // Uploads forgotten since a sweep's listing began, with when: the listing may still have seen them.
    private readonly Dictionary<string, long> _forgotten = new(StringComparer.Ordinal);
    private readonly TaskCompletionSource _counted = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _pendingBytes;
    private long _version;

    /// <summary>Done once the first sweep after start has counted the store's uploads (or failed to list them).</summary>
    public Task Counted => _counted.Task;

    /// <summary>Lets creations through without the first count: the listing failed, and refusing every creation until it works helps no one.</summary>
    public void CountingFailed() => _counted.TrySetResult();

    /// <summary>The address a per-client quota counts for the request (an IPv4 client seen through IPv6 as itself).</summary>
    public static string ClientOf(HttpContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var address = context.Connection.RemoteIpAddress ?? IPAddress.None;
        return (address.IsIPv4MappedToIPv6 ? address.MapToIPv4() : address).ToString();
    }

    /// <summary>
    /// Counts a new upload (its <see cref="ResumableUpload.Client"/>, its declared length) or throws 429 / 507 and
    /// counts nothing. A final upload (<paramref name="limitClient"/> false) is not refused for its client's count:
    /// it ends the partial uploads it joins, so refusing it would only keep them.
    /// </summary>
    public void Admit(ResumableUpload upload, bool limitClient = true)
    {
        ArgumentNullException.ThrowIfNull(upload);
        var pending = PendingOf(upload);
        var available = pending > 0 ? store.AvailableBytes() : null;
        lock (_lock)
        {
            if (limitClient && upload.Client is { } client && _perClient.GetValueOrDefault(client) >= options.MaxUnfinishedUploadsPerClient)
            {
                throw new ProblemException(StatusCodes.Status429TooManyRequests, "Too many unfinished uploads",
                    $"This client already has {options.MaxUnfinishedUploadsPerClient} unfinished uploads; finish or terminate (DELETE) one first, or wait for one to expire.",
                    new Dictionary<string, string> { ["Retry-After"] = RetryAfterSeconds });
            }

            CheckSpace(pending, available);
            // Not in the store yet, so no listing may drop it before Stored says it is there.
            Add(upload.Id, upload.Client, pending, version: long.MaxValue);
        }
    }

    /// <summary>A deferred upload's length was declared: counts what it still expects, or throws 507 and changes nothing.</summary>
    public void Declare(ResumableUpload upload)
    {
        ArgumentNullException.ThrowIfNull(upload);
        var pending = PendingOf(upload);
        var available = pending > 0 ? store.AvailableBytes() : null;
        lock (_lock)
        {
            var counted = _uploads.TryGetValue(upload.Id, out var entry) ? entry.Pending : 0;
            CheckSpace(pending - counted, available);
            Set(upload, entry);
        }
    }

    /// <summary>
    /// The store holds the upload as given — created, or bytes arrived (it expects fewer) — so a sweep's listing
    /// begun from now on shows it.
    /// </summary>
    public void Stored(ResumableUpload upload)
    {
        ArgumentNullException.ThrowIfNull(upload);
        lock (_lock)
        {
            Set(upload, _uploads.GetValueOrDefault(upload.Id));
        }
    }

    /// <summary>The upload finished, was terminated or expired: it no longer counts.</summary>
    public void Forget(string id)
    {
        lock (_lock)
        {
            _forgotten[id] = ++_version;
            Remove(id);
        }
    }

    /// <summary>Marks the start of a listing of the store, for <see cref="Reconcile"/>.</summary>
    public long BeginListing()
    {
        lock (_lock)
        {
            _forgotten.Clear();
            return _version;
        }
    }

    /// <summary>
    /// Replaces the counts with the store's: <paramref name="listed"/> is every upload a listing begun at
    /// <paramref name="since"/> (<see cref="BeginListing"/>) found. What changed here meanwhile is newer and stays.
    /// </summary>
    public void Reconcile(IReadOnlyList<ResumableUpload> listed, long since)
    {
        ArgumentNullException.ThrowIfNull(listed);
        lock (_lock)
        {
            var unfinished = new HashSet<string>(StringComparer.Ordinal);
            foreach (var upload in listed)
            {
                if (upload.Completion is not null || _forgotten.GetValueOrDefault(upload.Id) > since)
                {
                    continue;
                }

                unfinished.Add(upload.Id);
                if (!_uploads.TryGetValue(upload.Id, out var entry))
                {
                    Add(upload.Id, upload.Client, PendingOf(upload), ++_version);
                }
                else if (entry.Version <= since)
                {
                    Set(upload, entry);
                }
            }

            List<string>? gone = null;
            foreach (var (id, entry) in _uploads)
            {
                if (entry.Version <= since && !unfinished.Contains(id))
                {
                    (gone ??= []).Add(id);
                }
            }

            foreach (var id in gone ?? [])
            {
                Remove(id);
            }

            _forgotten.Clear();
        }

        _counted.TrySetResult();
    }

    /// <summary>Bytes all unfinished uploads still expect, as counted.</summary>
    public long PendingBytes
    {
        get
        {
            lock (_lock)
            {
                return _pendingBytes;
            }
        }
    }

    private static long PendingOf(ResumableUpload upload) => upload.Length is { } length ? Math.Max(0, length - upload.Offset) : 0;

    /// <summary>Whether <paramref name="more"/> bytes can be promised on top of what is (the caller holds the lock).</summary>
    private void CheckSpace(long more, long? available)
    {
        if (more <= 0)
        {
            return;
        }

        // Subtractions, not sums: declared lengths are client input and may add up past long.MaxValue.
        var fitsCap = options.MaxPendingBytes == 0 || more <= options.MaxPendingBytes - _pendingBytes;
        var fitsStore = available is not { } free || more <= free - options.MinFreeBytes - _pendingBytes;
        if (!fitsCap || !fitsStore)
        {
            throw new ProblemException(StatusCodes.Status507InsufficientStorage, "Insufficient storage",
                $"The server cannot take {more} more bytes of unfinished uploads now; finish or terminate uploads, or retry later with a smaller one.");
        }
    }

    private void Add(string id, string? client, long pending, long version)
    {
        _uploads[id] = new Entry(client) { Pending = pending, Version = version };
        _pendingBytes += pending;
        if (client is not null)
        {
            _perClient[client] = _perClient.GetValueOrDefault(client) + 1;
        }
    }

    private void Remove(string id)
    {
        if (_uploads.Remove(id, out var entry))
        {
            _pendingBytes -= entry.Pending;
            if (entry.Client is { } client && --_perClient[client] == 0)
            {
                _perClient.Remove(client);
            }
        }
    }

    private void Set(ResumableUpload upload, Entry? entry)
    {
        if (entry is null)
        {
            // Created on another node since the last sweep: counted from now on.
            Add(upload.Id, upload.Client, PendingOf(upload), ++_version);
            return;
        }

        var pending = PendingOf(upload);
        _pendingBytes += pending - entry.Pending;
        entry.Pending = pending;
        entry.Version = ++_version;
    }

    private sealed class Entry(string? client)
    {
        public string? Client { get; } = client;

        public long Pending { get; set; }

        /// <summary>When it last changed here (a tick of <see cref="_version"/>): newer than a listing wins over it.</summary>
        public long Version { get; set; }
    }
}
