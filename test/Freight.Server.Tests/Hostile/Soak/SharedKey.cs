using System.Collections.Concurrent;
using System.Diagnostics;

namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>
/// A key every client races for with conditional writes (If-Match the ETag it just read, If-None-Match: * when
/// absent): any of them may lose with 412. The history of acknowledged writes and deletes decides what the key
/// may hold at the end: the outcome of an acknowledged operation that no other acknowledged operation started
/// after the end of (a linearizable register's possible last writes).
/// </summary>
internal sealed class SharedKey(string name)
{
    private readonly ConcurrentDictionary<string, StoredVersion> _attempted = new();
    private readonly ConcurrentQueue<(StoredVersion? Outcome, long Started, long Ended)> _acknowledged = new();

    public string Name { get; } = name;

    /// <summary>Registers a version before it is sent: a read may show any version ever sent, with its own ETag.</summary>
    public void Attempting(StoredVersion version) => _attempted[version.Hash] = version;

    public bool WasAttempted(string hash) => _attempted.ContainsKey(hash);

    /// <summary>An acknowledged write (<paramref name="outcome"/>) or delete (null), sent at <paramref name="started"/> and answered at <paramref name="ended"/> (<see cref="Stopwatch"/> ticks).</summary>
    public void Acknowledged(StoredVersion? outcome, long started, long ended) => _acknowledged.Enqueue((outcome, started, ended));

    /// <summary>The hashes the key may hold at the end (null: absent).</summary>
    public IReadOnlySet<string?> PossibleFinalHashes()
    {
        var all = _acknowledged.ToList();
        if (all.Count == 0)
        {
            return new HashSet<string?> { null };
        }

        var latestStart = all.Max(operation => operation.Started);
        return all.Where(operation => operation.Ended >= latestStart).Select(operation => operation.Outcome?.Hash).ToHashSet();
    }
}
