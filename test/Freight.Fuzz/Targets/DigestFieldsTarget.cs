using Freight.Digests;
using Microsoft.Extensions.Primitives;

namespace Freight.Fuzz;

/// <summary>
/// The RFC 8941 Dictionary reader behind <see cref="DigestFields"/> and <see cref="WantDigest"/>: the input's lines
/// are the field lines. Parsing never throws; a refusal leaves nothing behind; what is accepted has RFC 8941 keys,
/// digests of the right length and weights of 0 to 10, and written back in canonical form parses to the same.
/// </summary>
internal sealed class DigestFieldsTarget : IFuzzTarget
{
    public string Name => "digest-fields";

    public void Run(ReadOnlySpan<byte> input)
    {
        var lines = new StringValues(FuzzInput.Latin1(input).Split('\n'));

        if (DigestFields.TryParse(lines, out var digests))
        {
            foreach (var (key, digest) in digests)
            {
                Invariant.Check(IsKey(key), $"'{key}' is an RFC 8941 key");
                if (DigestAlgorithm.TryGetFieldAlgorithm(key, out var algorithm))
                {
                    Invariant.Check(digest.Length == algorithm.HashLength, $"a {key} digest is {algorithm.HashLength} bytes");
                }
            }

            var canonical = string.Join(", ", digests.Select(member => $"{member.Key}=:{Convert.ToBase64String(member.Value)}:"));
            Invariant.Check(
                DigestFields.TryParse(canonical, out var again) && SameDigests(digests, again),
                "accepted digests, written canonically, parse to the same");
        }
        else
        {
            Invariant.Check(digests.Count == 0, "a refused digest field yields no digests");
        }

        if (WantDigest.TryParse(lines, out var preferences))
        {
            foreach (var (key, weight) in preferences)
            {
                Invariant.Check(IsKey(key), $"'{key}' is an RFC 8941 key");
                Invariant.Check(weight is >= 0 and <= 10, "a weight is 0 to 10");
            }

            var canonical = string.Join(", ", preferences.Select(member => $"{member.Key}={member.Value}"));
            Invariant.Check(
                WantDigest.TryParse(canonical, out var again)
                    && again.Count == preferences.Count
                    && preferences.All(member => again.TryGetValue(member.Key, out var weight) && weight == member.Value),
                "accepted preferences, written canonically, parse to the same");

            var chosen = WantDigest.SelectPreferred(preferences);
            var best = DigestAlgorithm.FieldAlgorithms
                .Select(algorithm => preferences.GetValueOrDefault(algorithm.Name))
                .Max();
            Invariant.Check(
                chosen is null ? best == 0 : preferences[chosen.Name] == best && best > 0,
                "the chosen algorithm has the highest non-zero weight");
        }
        else
        {
            Invariant.Check(preferences.Count == 0, "a refused preference field yields no preferences");
        }
    }

    // RFC 8941 §3.2 key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )
    private static bool IsKey(string key) =>
        key.Length > 0
        && (key[0] is >= 'a' and <= 'z' or '*')
        && key.All(c => c is >= 'a' and <= 'z' or >= '0' and <= '9' or '_' or '-' or '.' or '*');

    private static bool SameDigests(IReadOnlyDictionary<string, byte[]> a, IReadOnlyDictionary<string, byte[]> b) =>
        a.Count == b.Count && a.All(member => b.TryGetValue(member.Key, out var other) && other.AsSpan().SequenceEqual(member.Value));
}
