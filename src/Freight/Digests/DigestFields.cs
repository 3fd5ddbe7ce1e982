using System.Collections.ObjectModel;
using System.Text;
using Microsoft.Extensions.Primitives;

namespace Freight.Digests;

/// <summary>
/// Reads and writes the RFC 9530 integrity fields <c>Content-Digest</c> (§2, over the message content as
/// sent) and <c>Repr-Digest</c> (§3, over the selected representation's data). Both are RFC 8941
/// Dictionaries whose keys are Hash Algorithm Keys and whose values are Byte Sequences: <c>sha-256=:base64:</c>.
/// </summary>
public static class DigestFields
{
    /// <summary><c>Content-Digest</c> (RFC 9530 §2).</summary>
    public const string ContentDigestHeader = "Content-Digest";
    /// <summary><c>Repr-Digest</c> (RFC 9530 §3).</summary>
    public const string ReprDigestHeader = "Repr-Digest";

    /// <summary>
    /// Parses every field line of a <c>Content-Digest</c> or <c>Repr-Digest</c> field as one Dictionary.
    /// </summary>
    /// <param name="headerValues">The field lines; several lines are combined as a list (RFC 8941 §4.2).</param>
    /// <param name="digests">
    /// Key → decoded digest bytes. Unknown and deprecated keys are kept, raw, so the caller decides (RFC 9530 §2
    /// lets a recipient ignore any digest; <see cref="DigestAlgorithm.TryGetFieldAlgorithm"/> names the ones
    /// Freight checks). A repeated key keeps its last value (RFC 8941 §4.2.2). Parameters are checked for syntax
    /// and ignored: RFC 9530 defines none. Empty when the field is absent or empty, or on failure.
    /// </param>
    /// <returns>
    /// False when the field is not a valid Dictionary of Byte Sequences (missing colons, bad base64, an
    /// uppercase key, a trailing comma, a value of another type), or when a sha-256/sha-512 digest has the
    /// wrong length — it could never match, so it is as malformed as bad base64. An absent or empty field
    /// parses to an empty dictionary: RFC 8941 §3.2 treats an empty Dictionary as an absent field.
    /// </returns>
    public static bool TryParse(StringValues headerValues, out IReadOnlyDictionary<string, byte[]> digests)
    {
        digests = ReadOnlyDictionary<string, byte[]>.Empty;
        var reader = StructuredFieldReader.Create(StructuredFieldReader.Combine(headerValues));
        if (reader.IsAtEnd)
        {
            return true;
        }

        var result = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        while (!reader.IsAtEnd)
        {
            // A member without "=" is a Boolean, and an inner list is not a Byte Sequence either.
            if (!reader.TryReadKey(out var key)
                || !reader.TryConsume('=')
                || !reader.TryReadByteSequence(out var digest)
                || !reader.TrySkipParameters())
            {
                return false;
            }

            if (DigestAlgorithm.TryGetFieldAlgorithm(key, out var algorithm) && digest.Length != algorithm.HashLength)
            {
                return false;
            }

            result[key] = digest;
            if (!reader.TrySkipMemberSeparator())
            {
                return false;
            }
        }

        digests = result;
        return true;
    }

    /// <summary>
    /// The algorithms among <paramref name="digests"/> that Freight verifies (sha-256, sha-512), in
    /// <see cref="DigestAlgorithm.FieldAlgorithms"/> order: what a <see cref="StreamingDigests"/> must compute.
    /// </summary>
    public static IReadOnlyList<DigestAlgorithm> VerifiableAlgorithms(IReadOnlyDictionary<string, byte[]> digests)
    {
        ArgumentNullException.ThrowIfNull(digests);
        var algorithms = new List<DigestAlgorithm>(DigestAlgorithm.FieldAlgorithms.Count);
        foreach (var algorithm in DigestAlgorithm.FieldAlgorithms)
        {
            if (digests.ContainsKey(algorithm.Name))
            {
                algorithms.Add(algorithm);
            }
        }

        return algorithms;
    }

    /// <summary>Formats one digest as a field value: <c>sha-256=:base64:</c>.</summary>
    public static string Format(DigestAlgorithm algorithm, ReadOnlySpan<byte> digest)
    {
        var builder = new StringBuilder();
        Append(builder, algorithm, digest);
        return builder.ToString();
    }

    /// <summary>Formats digests as one field value, in the order given: <c>sha-256=:...:, sha-512=:...:</c>.</summary>
    /// <exception cref="ArgumentException">
    /// No digest; an algorithm that is not a Digest field algorithm (MD5 belongs in <c>Content-MD5</c>,
    /// RFC 9530 §7.2 deprecates <c>md5</c>); or a digest whose length does not fit its algorithm.
    /// </exception>
    public static string Format(IEnumerable<(DigestAlgorithm Algorithm, byte[] Digest)> digests)
    {
        ArgumentNullException.ThrowIfNull(digests);
        var builder = new StringBuilder();
        foreach (var (algorithm, digest) in digests)
        {
            ArgumentNullException.ThrowIfNull(digest);
            if (builder.Length > 0)
            {
                builder.Append(", ");
            }

            Append(builder, algorithm, digest);
        }

        if (builder.Length == 0)
        {
            // An empty Dictionary means "no field" (RFC 8941 §3.2): the caller should omit the header instead.
            throw new ArgumentException("At least one digest is needed.", nameof(digests));
        }

        return builder.ToString();
    }

    private static void Append(StringBuilder builder, DigestAlgorithm algorithm, ReadOnlySpan<byte> digest)
    {
        ArgumentNullException.ThrowIfNull(algorithm);
        if (!DigestAlgorithm.TryGetFieldAlgorithm(algorithm.Name, out _))
        {
            throw new ArgumentException($"{algorithm.Name} is not an RFC 9530 field algorithm.", nameof(algorithm));
        }

        if (digest.Length != algorithm.HashLength)
        {
            throw new ArgumentException($"A {algorithm.Name} digest is {algorithm.HashLength} bytes, not {digest.Length}.", nameof(digest));
        }

        builder.Append(algorithm.Name).Append("=:").Append(Convert.ToBase64String(digest)).Append(':');
    }
}
