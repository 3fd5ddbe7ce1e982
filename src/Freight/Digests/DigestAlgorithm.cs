using System.Diagnostics.CodeAnalysis;
using System.Security.Cryptography;

namespace Freight.Digests;

/// <summary>
/// A digest algorithm Freight computes and verifies: the two "Active" entries of the RFC 9530 §7.2 Hash
/// Algorithms registry (<c>sha-256</c>, <c>sha-512</c>) and MD5, which is only for the legacy
/// <c>Content-MD5</c> field (RFC 1864).
/// </summary>
/// <remarks>
/// The registry's deprecated keys (<c>md5</c>, <c>sha</c>, <c>unixsum</c>, <c>unixcksum</c>, <c>adler</c>,
/// <c>crc32c</c>) are recognised by <see cref="IsDeprecatedKey"/> but never supported in Digest fields:
/// RFC 9530 §7.2 marks them insecure or not integrity checks, and §2 lets a recipient ignore any digest.
/// Instances are singletons, so reference equality is algorithm equality.
/// </remarks>
public sealed class DigestAlgorithm
{
    /// <summary>SHA-256, RFC 9530 key <c>sha-256</c>: 32 bytes.</summary>
    public static readonly DigestAlgorithm Sha256 = new("sha-256", 32, HashAlgorithmName.SHA256);

    /// <summary>SHA-512, RFC 9530 key <c>sha-512</c>: 64 bytes.</summary>
    public static readonly DigestAlgorithm Sha512 = new("sha-512", 64, HashAlgorithmName.SHA512);

    /// <summary>MD5 for <c>Content-MD5</c> (RFC 1864) only: 16 bytes. Its RFC 9530 key <c>md5</c> is deprecated.</summary>
    public static readonly DigestAlgorithm Md5 = new("md5", 16, HashAlgorithmName.MD5);

    private DigestAlgorithm(string name, int hashLength, HashAlgorithmName hashAlgorithmName)
    {
        Name = name;
        HashLength = hashLength;
        HashAlgorithmName = hashAlgorithmName;
    }

    /// <summary>
    /// The algorithms Digest fields may carry, in the order <see cref="WantDigest"/> breaks preference ties:
    /// sha-256 first (see <see cref="WantDigest.SelectPreferred(IReadOnlyDictionary{string, int})"/>).
    /// </summary>
    public static IReadOnlyList<DigestAlgorithm> FieldAlgorithms { get; } = [Sha256, Sha512];

    /// <summary>The Hash Algorithm Key as registered for RFC 9530 (lowercase).</summary>
    public string Name { get; }

    /// <summary>Length of the digest in bytes.</summary>
    public int HashLength { get; }

    /// <summary>The name <see cref="IncrementalHash"/> computes this algorithm under.</summary>
    public HashAlgorithmName HashAlgorithmName { get; }

    /// <summary>
    /// Maps a Digest field key to an algorithm Freight verifies in <c>Content-Digest</c>/<c>Repr-Digest</c>:
    /// only <c>sha-256</c> and <c>sha-512</c>. Deprecated and unknown keys give false.
    /// </summary>
    /// <remarks>Keys are case-sensitive: RFC 8941 §3.2 dictionary keys are lowercase, so <c>SHA-256</c> is not a key.</remarks>
    public static bool TryGetFieldAlgorithm(string key, [NotNullWhen(true)] out DigestAlgorithm? algorithm)
    {
        ArgumentNullException.ThrowIfNull(key);
        algorithm = key switch
        {
            "sha-256" => Sha256,
            "sha-512" => Sha512,
            _ => null,
        };
        return algorithm is not null;
    }

    /// <summary>True for the keys RFC 9530 §7.2 registers as deprecated: md5, sha, unixsum, unixcksum, adler, crc32c.</summary>
    public static bool IsDeprecatedKey(string key) =>
        key is "md5" or "sha" or "unixsum" or "unixcksum" or "adler" or "crc32c";

    /// <inheritdoc />
    public override string ToString() => Name;
}
