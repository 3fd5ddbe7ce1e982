using System.IO.Hashing;
using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;

namespace Freight.Micro.Hashing;

/// <summary>
/// The two hashes on Freight's data path: XXH3-128 (System.IO.Hashing's <see cref="XxHash128"/>; ETags, the bench's
/// verification) and SHA-256 (RFC 9530 digests), over one transport block and over a 20 MiB payload.
/// </summary>
/// <remarks>Not sealed: BenchmarkDotNet derives from benchmark classes.</remarks>
public class HashBenchmarks
{
    private readonly byte[] _digest = new byte[SHA256.HashSizeInBytes];
    private byte[] _data = null!;

    [ParamsSource(nameof(Sizes))]
    public HashInput Input { get; set; } = null!;

    public static IEnumerable<HashInput> Sizes => [new(64 * 1024, "64KiB", "64 KiB (one transport block, in cache)"), new(20 * 1024 * 1024, "20MiB", "20 MiB (study 1's payload)")];

    [GlobalSetup]
    public void Setup()
    {
        _data = new byte[Input.BytesPerOperation];
        new Random(19).NextBytes(_data);
    }

    [Benchmark(Description = "xxh3-128")]
    public UInt128 Xxh3() => XxHash128.HashToUInt128(_data);

    [Benchmark(Description = "sha-256")]
    public byte Sha256()
    {
        SHA256.HashData(_data, _digest);
        return _digest[0];
    }
}
