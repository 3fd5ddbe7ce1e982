using CsCheck;
using Freight.Files;

namespace Freight.Tests.Files;

/// <summary>
/// Key normalisation, generated: keys built from valid segments (letters, digits, dots, dashes, spaces, accented,
/// CJK and astral characters) round-trip unchanged through <see cref="StorageKey"/> and through
/// <see cref="StoragePrefix.TryAppend"/>; the same keys with a traversal form worked in are always refused.
/// </summary>
public sealed class StorageKeyProperties
{
    // Dots are in the alphabet, so "..x", "x.." and ".env" come up; "." and ".." alone are filtered out.
    private static readonly Gen<string> s_segment = Gen.String[Gen.Char["abcXYZ019.-_ ~()'é漢"], 1, 16]
        .Select(Gen.OneOf("", "", "😀"), (text, astral) => text + astral)
        .Where(segment => segment is not ("." or "..") && !segment.StartsWith(".freight", StringComparison.OrdinalIgnoreCase));

    private static readonly Gen<string[]> s_segments = s_segment.Array[1, 6];

    // Ways to climb out of, or smuggle something past, a key's intended folder.
    private static readonly Gen<string> s_traversal = Gen.OneOf(
        "..", ".", "", "../..", "a\\..\\b", "..\\", "%2F..", "..%2f", "%2e%2e%2F", "a\0b", "\t", "a\u0085b", "\u007F",
        ".freight", ".freight-x", "x.freight-tmp", "x.FREIGHT-META");

    [Fact]
    public void TryParse_ValidKeys_RoundTripUnchanged()
    {
        s_segments.Sample(segments =>
        {
            var raw = string.Join('/', segments);
            Assert.True(StorageKey.TryParse(raw, out var key, out var error), error);
            Assert.Equal(raw, key.Value);
            Assert.Equal(segments[^1], key.Name);
            Assert.True(StorageKey.TryParse(key.Value, out var again, out _));
            Assert.Equal(key, again);

            // The same key, put together as a prefix and a relative path.
            var folder = segments.Length == 1 ? "" : string.Join('/', segments[..^1]) + "/";
            Assert.True(StoragePrefix.TryParse(folder, out var prefix, out error), error);
            Assert.True(prefix.TryAppend(segments[^1], out var appended, out error), error);
            Assert.Equal(key, appended);
            Assert.True(prefix.Contains(appended));
        }, iter: 3000, threads: 1);
    }

    [Fact]
    public void TryParse_TraversalFormAnywhere_IsRefused()
    {
        Gen.Select(s_segments, s_traversal, Gen.Int[0, 6], Gen.Bool).Sample((segments, traversal, at, whole) =>
        {
            var position = Math.Min(at, segments.Length);
            var list = segments.ToList();

            // As a segment of its own, or glued onto a neighbour (where only the segment-free forms can count).
            if (whole || position == segments.Length)
            {
                list.Insert(position, traversal);
            }
            else
            {
                list[position] = traversal + list[position];
            }

            var raw = string.Join('/', list);
            if (!whole && traversal is ".." or "." or "" or "../.." or ".freight" or ".freight-x" or "x.freight-tmp" or "x.FREIGHT-META")
            {
                return; // glued on, these are ordinary names ("..x", ".x"); only whole segments are traversal
            }

            Assert.False(StorageKey.TryParse(raw, out _, out var error), $"'{raw}' was accepted");
            Assert.False(string.IsNullOrEmpty(error));
            Assert.False(StoragePrefix.Root.TryAppend(raw, out _, out _), $"'{raw}' was appended");
            Assert.False(StorageKey.TryParse("/" + string.Join('/', segments), out _, out _), "a leading '/' was accepted");
        }, iter: 3000, threads: 1);
    }
}
