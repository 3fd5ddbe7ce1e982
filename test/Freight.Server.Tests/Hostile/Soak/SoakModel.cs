using System.Collections.Concurrent;
using System.Diagnostics;
using Freight.Payload;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>One version of a key's bytes: the deterministic payload of <see cref="Length"/> bytes with <see cref="Seed"/>, and its XXH3-128.</summary>
internal sealed record StoredVersion(long Length, ulong Seed, string Hash)
{
    public string ETag => "\"" + Hash + "\"";

    public static (StoredVersion Version, byte[] Bytes) Create(int length, ulong seed)
    {
        var bytes = DeterministicPayload.Create(length, seed);
        return (new StoredVersion(length, seed, Payloads.Hash(bytes)), bytes);
    }

    public byte[] Bytes() => DeterministicPayload.Create(Length, Seed);
}

/// <summary>
/// A key only one client writes: the client is sequential, so the model is exact — after each answer the key
/// holds <see cref="Current"/> (null: absent) and every read must show exactly that.
/// </summary>
internal sealed class OwnedKey(string name)
{
    public string Name { get; } = name;

    public StoredVersion? Current { get; set; }
}

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
