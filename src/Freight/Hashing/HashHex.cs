using System.Buffers.Binary;

namespace Freight.Hashing;

/// <summary>The one text form of an XXH3-128 (<see cref="System.IO.Hashing.XxHash128"/>) everywhere in Freight.</summary>
public static class HashHex
{
    /// <summary>
    /// 32 lowercase hex digits, high 64 bits first: what <c>xxhsum -H2</c> prints, and the byte order of
    /// <c>XxHash128.GetCurrentHash</c> (big-endian, xxHash's canonical form).
    /// </summary>
    public static string ToHex(UInt128 hash)
    {
        Span<byte> bytes = stackalloc byte[16];
        BinaryPrimitives.WriteUInt128BigEndian(bytes, hash);
        return Convert.ToHexStringLower(bytes);
    }
}
