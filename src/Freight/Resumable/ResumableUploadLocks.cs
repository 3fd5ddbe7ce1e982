using System.Collections.Concurrent;

namespace Freight.Resumable;

/// <summary>
/// One writer per upload on this node: a second request for an upload that is busy is refused at once
/// (tus: 423 Locked, which clients retry) instead of queueing behind a request that may be dead.
/// </summary>
internal sealed class ResumableUploadLocks
{
    private readonly ConcurrentDictionary<string, byte> _held = new(StringComparer.Ordinal);

    /// <summary>Takes the upload's lock, or returns false when another request holds it. Dispose the holder to release.</summary>
    public bool TryEnter(string id, out Holder holder)
    {
        ArgumentNullException.ThrowIfNull(id);
        if (_held.TryAdd(id, 0))
        {
            holder = new Holder(this, id);
            return true;
        }

        holder = default;
        return false;
    }

    /// <summary>Waits (polling) up to <paramref name="patience"/> for the lock: for requests that should not fail just because a cut-off PATCH is still unwinding.</summary>
    public async ValueTask<Holder?> EnterAsync(string id, TimeSpan patience, CancellationToken cancellationToken)
    {
        var deadline = DateTime.UtcNow + patience;
        while (true)
        {
            if (TryEnter(id, out var holder))
            {
                return holder;
            }

            if (DateTime.UtcNow >= deadline)
            {
                return null;
            }

            await Task.Delay(20, cancellationToken);
        }
    }

    public bool IsHeld(string id) => _held.ContainsKey(id);

    public readonly struct Holder(ResumableUploadLocks locks, string id) : IDisposable
    {
        public void Dispose() => locks?._held.TryRemove(id, out _);
    }
}
