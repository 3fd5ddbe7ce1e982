using System.Collections.Concurrent;

namespace Freight.Resumable;

/// <summary>
/// One request per upload on this node. A request that finds the upload held takes it over
/// (<see cref="TakeOverAsync"/>): it asks the holder to let go (<see cref="Holder.ReleaseRequested"/>: a PATCH stops
/// reading its body at the next chunk and keeps what it wrote) and waits, bounded, for it to do so. The newest request
/// wins, as in tusd: a PATCH whose client vanished, or whose proxy still delivers the bytes it buffered, would
/// otherwise keep the upload until its body ends, and the client resuming from HEAD's offset would find it moved on.
/// </summary>
internal sealed class ResumableUploadLocks
{
    private readonly ConcurrentDictionary<string, Claim> _held = new(StringComparer.Ordinal);

    /// <summary>Takes the upload's lock, or returns false when another request holds it. Dispose the holder to release.</summary>
    public bool TryEnter(string id, out Holder holder)
    {
        ArgumentNullException.ThrowIfNull(id);
        var claim = new Claim();
        if (_held.TryAdd(id, claim))
        {
            holder = new Holder(this, id, claim);
            return true;
        }

        holder = default;
        return false;
    }

    /// <summary>
    /// Takes the upload's lock from whoever holds it: asks the holder to release it, each time another one is found
    /// holding it, and waits (polling) up to <paramref name="patience"/>; null when the holder did not let go by then.
    /// </summary>
    public async ValueTask<Holder?> TakeOverAsync(string id, TimeSpan patience, CancellationToken cancellationToken)
    {
        var deadline = DateTime.UtcNow + patience;
        while (true)
        {
            if (TryEnter(id, out var holder))
            {
                return holder;
            }

            if (_held.TryGetValue(id, out var claim))
            {
                claim.Request();
            }

            if (DateTime.UtcNow >= deadline)
            {
                return null;
            }

            await Task.Delay(20, cancellationToken);
        }
    }

    public bool IsHeld(string id) => _held.ContainsKey(id);

    public readonly struct Holder : IDisposable
    {
        private readonly ResumableUploadLocks? _locks;
        private readonly string? _id;
        private readonly Claim? _claim;

        internal Holder(ResumableUploadLocks locks, string id, Claim claim)
        {
            _locks = locks;
            _id = id;
            _claim = claim;
        }

        /// <summary>
        /// Canceled when another request asks for the upload: the holder should end what it can end early (a PATCH's
        /// body read) and release. A default holder's is never canceled.
        /// </summary>
        public CancellationToken ReleaseRequested => _claim?.Token ?? CancellationToken.None;

        /// <summary>Releases the lock; a takeover waiting for it gets it at its next look.</summary>
        public void Dispose() => _locks?._held.TryRemove(new KeyValuePair<string, Claim>(_id!, _claim!));
    }

    /// <summary>
    /// One hold of an upload. Never disposed: another request may still ask it to release after it ended, and a token
    /// source with no timer and no wait handle holds nothing to free.
    /// </summary>
    internal sealed class Claim
    {
        private readonly CancellationTokenSource _release = new();

        public CancellationToken Token => _release.Token;

        public void Request() => _release.Cancel();
    }
}
