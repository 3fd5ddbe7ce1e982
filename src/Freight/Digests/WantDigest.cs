using System.Collections.ObjectModel;
using Microsoft.Extensions.Primitives;

namespace Freight.Digests;

/// <summary>
/// Reads the integrity preference fields <c>Want-Repr-Digest</c> and <c>Want-Content-Digest</c> (RFC 9530 §4):
/// Dictionaries of algorithm key → Integer weight, 1 least preferred to 10 most, 0 "not acceptable".
/// </summary>
/// <remarks>The fields are only a hint (§4): a server may ignore them, and ignoring them is not a protocol error.</remarks>
public static class WantDigest
{
    /// <summary><c>Want-Content-Digest</c> (RFC 9530 §4).</summary>
    public const string WantContentDigestHeader = "Want-Content-Digest";
    /// <summary><c>Want-Repr-Digest</c> (RFC 9530 §4).</summary>
    public const string WantReprDigestHeader = "Want-Repr-Digest";

    private const int MaxWeight = 10;

    /// <summary>Parses every field line as one Dictionary of weights.</summary>
    /// <param name="headerValues">The field lines; several lines are combined as a list (RFC 8941 §4.2).</param>
    /// <param name="preferences">
    /// Key → weight, unknown and deprecated keys included (selection skips them). A repeated key keeps its last
    /// weight (RFC 8941 §4.2.2); parameters are ignored. Empty when the field is absent or empty, or on failure.
    /// </param>
    /// <returns>False when a member is not an Integer from 0 to 10 (§4 says it "must be"), or the Dictionary is malformed.</returns>
    public static bool TryParse(StringValues headerValues, out IReadOnlyDictionary<string, int> preferences)
    {
        preferences = ReadOnlyDictionary<string, int>.Empty;
        var reader = StructuredFieldReader.Create(StructuredFieldReader.Combine(headerValues));
        if (reader.IsAtEnd)
        {
            return true;
        }

        var result = new Dictionary<string, int>(StringComparer.Ordinal);
        while (!reader.IsAtEnd)
        {
            if (!reader.TryReadKey(out var key)
                || !reader.TryConsume('=')
                || !reader.TryReadInteger(out var weight)
                || weight is < 0 or > MaxWeight
                || !reader.TrySkipParameters())
            {
                return false;
            }

            result[key] = (int)weight;
            if (!reader.TrySkipMemberSeparator())
            {
                return false;
            }
        }

        preferences = result;
        return true;
    }

    /// <summary>
    /// The most preferred of sha-256 and sha-512, or null when the client accepts neither (weight 0 or absent).
    /// A tie goes to sha-256: the shorter field, the algorithm every RFC 9530 implementation supports, and
    /// the one Freight stores by default, so answering with it costs no extra read of the content.
    /// </summary>
    public static DigestAlgorithm? SelectPreferred(IReadOnlyDictionary<string, int> preferences) =>
        SelectPreferred(preferences, DigestAlgorithm.FieldAlgorithms);

    /// <summary>
    /// The most preferred algorithm among <paramref name="available"/> (for example the digests stored with an
    /// object), or null when the client accepts none of them. Ties go to the earlier entry of
    /// <paramref name="available"/>; algorithms that are not RFC 9530 field algorithms (MD5) are never chosen.
    /// </summary>
    public static DigestAlgorithm? SelectPreferred(IReadOnlyDictionary<string, int> preferences, IReadOnlyList<DigestAlgorithm> available)
    {
        ArgumentNullException.ThrowIfNull(preferences);
        ArgumentNullException.ThrowIfNull(available);
        DigestAlgorithm? best = null;
        var bestWeight = 0;
        foreach (var algorithm in available)
        {
            // Strictly greater: weight 0 is never chosen, and the earlier of two equal weights stays.
            if (DigestAlgorithm.TryGetFieldAlgorithm(algorithm.Name, out _)
                && preferences.TryGetValue(algorithm.Name, out var weight)
                && weight > bestWeight)
            {
                best = algorithm;
                bestWeight = weight;
            }
        }

        return best;
    }
}
