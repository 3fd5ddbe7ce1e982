using System.Collections.Concurrent;
using System.IO.Hashing;
using Freight.Hashing;
using Freight.Lab.Payload;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>The bytes the lab serves and expects, and their XXH3-128, computed once per size.</summary>
internal static class Payloads
{
    public const int MiB = 1024 * 1024;

    /// <summary>One byte, one transport block (64 KiB) ± 1, and a body far larger than any buffer.</summary>
    public static readonly int[] Sizes = [1, 65535, 65536, 65537, 64 * MiB];

    private static readonly ConcurrentDictionary<int, Lazy<byte[]>> s_bytes = new();
    private static readonly ConcurrentDictionary<int, Lazy<string>> s_hashes = new();

    /// <summary>The first <paramref name="size"/> bytes of the deterministic payload (shared: do not modify).</summary>
    public static byte[] Bytes(int size) =>
        s_bytes.GetOrAdd(size, static s => new Lazy<byte[]>(() => DeterministicPayload.Create(s))).Value;

    /// <summary>The hash the server must report for a payload of <paramref name="size"/> bytes.</summary>
    public static string Hash(int size) =>
        s_hashes.GetOrAdd(size, static s => new Lazy<string>(() => Hash(Bytes(s)))).Value;

    public static string Hash(ReadOnlySpan<byte> bytes) => HashHex.ToHex(XxHash128.HashToUInt128(bytes));

    /// <summary>Reads <paramref name="stream"/> to its end, hashing as it goes; returns the count and the hash.</summary>
    public static async Task<(long Bytes, string Hash)> HashAsync(Stream stream)
    {
        var hasher = new XxHash128();
        long bytes = 0;
        var buffer = new byte[64 * 1024];
        int read;
        while ((read = await stream.ReadAsync(buffer)) > 0)
        {
            hasher.Append(buffer.AsSpan(0, read));
            bytes += read;
        }

        return (bytes, HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }
}
