using Freight.Lab.Payload;
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
