using System.Diagnostics.CodeAnalysis;

namespace Freight.Digests;

/// <summary>What a <see cref="StreamingDigests"/> computed over a complete body.</summary>
public sealed class ComputedDigests
{
    private readonly DigestAlgorithm[] _algorithms;
    private readonly byte[][] _digests;

    internal ComputedDigests(long length, UInt128 contentHash, DigestAlgorithm[] algorithms, byte[][] digests)
    {
        Length = length;
        ContentHash = contentHash;
        EntityTag = EntityTags.FromContentHash(contentHash);
        _algorithms = algorithms;
        _digests = digests;
    }

    /// <summary>Number of bytes hashed.</summary>
    public long Length { get; }

    /// <summary>XXH3-128 of the bytes: the source of the entity tag.</summary>
    public UInt128 ContentHash { get; }

    /// <summary>The strong entity tag of <see cref="ContentHash"/>, quoted (<see cref="EntityTags.FromContentHash"/>).</summary>
    public string EntityTag { get; }

    /// <summary>The algorithms computed, each once, in the order first asked for.</summary>
    public IReadOnlyList<DigestAlgorithm> Algorithms => _algorithms;

    /// <summary>The digest for <paramref name="algorithm"/>, or false when it was not computed.</summary>
    public bool TryGetDigest(DigestAlgorithm algorithm, [NotNullWhen(true)] out byte[]? digest)
    {
        ArgumentNullException.ThrowIfNull(algorithm);
        var index = Array.IndexOf(_algorithms, algorithm);
        digest = index < 0 ? null : _digests[index];
        return digest is not null;
    }

    /// <summary>The digest for <paramref name="algorithm"/>.</summary>
    /// <exception cref="InvalidOperationException">The algorithm was not computed.</exception>
    public byte[] GetDigest(DigestAlgorithm algorithm) =>
        TryGetDigest(algorithm, out var digest) ? digest : throw NotComputed(algorithm);

    /// <summary>
    /// Checks the digests of a parsed <c>Content-Digest</c> or <c>Repr-Digest</c> field
    /// (<see cref="DigestFields.TryParse"/>) against the bytes hashed.
    /// </summary>
    /// <returns>
    /// One entry per sha-256/sha-512 digest that differs; empty when all match. Unknown and deprecated keys are
    /// not checked (RFC 9530 §2 lets a recipient ignore any digest); whether a field with none of ours is
    /// acceptable is the caller's policy.
    /// </returns>
    /// <exception cref="InvalidOperationException">The field holds sha-256 or sha-512 but it was not computed.</exception>
    public IReadOnlyList<DigestMismatch> Verify(IReadOnlyDictionary<string, byte[]> expected)
    {
        ArgumentNullException.ThrowIfNull(expected);
        List<DigestMismatch>? mismatches = null;
        foreach (var algorithm in DigestAlgorithm.FieldAlgorithms)
        {
            if (expected.TryGetValue(algorithm.Name, out var sent) && Verify(algorithm, sent) is { } mismatch)
            {
                (mismatches ??= []).Add(mismatch);
            }
        }

        return mismatches is null ? [] : mismatches;
    }

    /// <summary>Checks one digest, such as a <c>Content-MD5</c> (<see cref="ContentMd5.TryParse"/>); null when it matches.</summary>
    /// <exception cref="InvalidOperationException">The algorithm was not computed.</exception>
    public DigestMismatch? Verify(DigestAlgorithm algorithm, byte[] expected)
    {
        ArgumentNullException.ThrowIfNull(expected);
        var actual = GetDigest(algorithm);
        return actual.AsSpan().SequenceEqual(expected) ? null : new DigestMismatch(algorithm, expected, actual);
    }

    private static InvalidOperationException NotComputed(DigestAlgorithm algorithm) =>
        new($"{algorithm.Name} was not computed: pass it to StreamingDigests when creating it.");
}
