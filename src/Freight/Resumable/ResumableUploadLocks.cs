using System.Collections.Concurrent;

namespace Freight.Resumable;

/// <summary>
/// One request per upload on this node. A request that finds the upload held takes it over
/// (<see cref="TakeOverAsync"/>): it asks the holder to let go (<see cref="Holder.ReleaseRequested"/>: a PATCH stops
/// reading its body at the next chunk and keeps what it wrote) and waits, bounded, for it to do so. The newest request
/// wins, as in tusd: a PATCH whose client vanished, or whose proxy still delivers the bytes it buffered, would
/// otherwise keep the upload until its body ends, and the client resuming from HEAD's offset would find it moved on.
/// A holder that is finishing the upload (<see cref="Holder.Finishing"/>) cannot let go: it is waited for, as long as
/// it said finishing may take.
/// </summary>
internal sealed class ResumableUploadLocks(TimeProvider? time = null)
{
    private readonly ConcurrentDictionary<string, Claim> _held = new(StringComparer.Ordinal);

    private readonly TimeProvider _time = time ?? TimeProvider.System;

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
    /// holding it, and waits for the release up to <paramref name="patience"/>, or, while the holder is finishing, up to
    /// the end it gave its finish (whichever is later); null when the holder did not let go by then.
    /// </summary>
    public async ValueTask<Holder?> TakeOverAsync(string id, TimeSpan patience, CancellationToken cancellationToken)
    {
        var deadline = _time.GetTimestamp() + Ticks(patience);
        while (true)
        {
            if (TryEnter(id, out var holder))
            {
                return holder;
            }

            if (!_held.TryGetValue(id, out var claim))
            {
                continue; // let go between the two looks
            }

            claim.Request();
            var left = Math.Max(deadline, claim.FinishBy) - _time.GetTimestamp();
            if (left <= 0)
            {
                return null;
            }

            try
            {
                await claim.Released.WaitAsync(TimeSpan.FromSeconds((double)left / _time.TimestampFrequency), _time, cancellationToken);
            }
            catch (TimeoutException)
            {
                // Looked at again: the holder may have begun finishing meanwhile, which moves the end.
            }
        }
    }

    public bool IsHeld(string id) => _held.ContainsKey(id);

    private long Ticks(TimeSpan span) => (long)(span.TotalSeconds * _time.TimestampFrequency);

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

        /// <summary>
        /// Says the holder is finishing the upload (its digests, the file made), which it cannot stop half-way, and
        /// how long that may take: a request taking the upload over waits for it that long, however long its own
        /// patience, and then finds the upload finished.
        /// </summary>
        public void Finishing(TimeSpan atMost)
        {
            if (_claim is not null)
            {
                _claim.FinishBy = _locks!._time.GetTimestamp() + _locks.Ticks(atMost);
            }
        }

        /// <summary>Releases the lock; a takeover waiting for it gets it at once.</summary>
        public void Dispose()
        {
            if (_claim is not null)
            {
                _locks!._held.TryRemove(new KeyValuePair<string, Claim>(_id!, _claim));
                _claim.Release();
            }
        }
    }

    /// <summary>
    /// One hold of an upload. Never disposed: another request may still ask it to release after it ended, and a token
    /// source with no timer and no wait handle holds nothing to free.
    /// </summary>
    internal sealed class Claim
    {
        private readonly CancellationTokenSource _release = new();

        private readonly TaskCompletionSource _released = new(TaskCreationOptions.RunContinuationsAsynchronously);

        private long _finishBy;

        public CancellationToken Token => _release.Token;

        /// <summary>Completes once the hold ended.</summary>
        public Task Released => _released.Task;

        /// <summary>The timestamp by which a finishing holder said it would be done; 0 while it is not finishing.</summary>
        public long FinishBy
        {
            get => Volatile.Read(ref _finishBy);
            set => Volatile.Write(ref _finishBy, value);
        }

        public void Request() => _release.Cancel();

        public void Release() => _released.TrySetResult();
    }
}
