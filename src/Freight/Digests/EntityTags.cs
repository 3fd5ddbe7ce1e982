using System.Buffers.Binary;

namespace Freight.Digests;

/// <summary>Entity tags derived from content, so equal bytes get equal tags on every node and after a restart.</summary>
public static class EntityTags
{
    // DQUOTE, 32 hex digits, DQUOTE.
    private const int StrongTagLength = 34;

    /// <summary>
    /// A strong entity tag (RFC 9110 §8.8.3) from the XXH3-128 of the representation data:
    /// <c>"&lt;32 lowercase hex&gt;"</c>, quotes included, high 64 bits first (as <see cref="Hashing.HashHex.ToHex"/>).
    /// </summary>
    /// <remarks>
    /// Strong is right because the hash covers every byte of the representation (§8.8.1: a strong validator
    /// changes whenever the representation data does). XXH3 is not cryptographic: the tag is a validator
    /// for caches and conditional requests, not an integrity check; Repr-Digest is the integrity check.
    /// </remarks>
    public static string FromContentHash(UInt128 contentHash) =>
        string.Create(StrongTagLength, contentHash, static (chars, hash) =>
        {
            Span<byte> bytes = stackalloc byte[16];
            BinaryPrimitives.WriteUInt128BigEndian(bytes, hash);
            chars[0] = '"';
            Convert.TryToHexStringLower(bytes, chars[1..^1], out _);
            chars[^1] = '"';
        });
}
