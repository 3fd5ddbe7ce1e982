using System.Text;
using Freight.Files;

namespace Freight.Fuzz;

/// <summary>
/// <see cref="StorageKey"/> and <see cref="StoragePrefix"/>: the first byte picks how the rest becomes text (UTF-8,
/// raw UTF-16 with lone surrogates, or one char per byte); the text is a key, and its split at the first U+0000 a
/// prefix and a relative path. Acceptance must match a plain statement of the rules, and a key that is accepted
/// holds no '..', '.', empty segment, backslash or control character, and validates again to itself.
/// </summary>
internal sealed class StorageKeyTarget : IFuzzTarget
{
    private static readonly UTF8Encoding s_strictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    public string Name => "storage-keys";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (input.IsEmpty)
        {
            return;
        }

        var text = (input[0] & 3) switch
        {
            0 => Encoding.UTF8.GetString(input[1..]),
            1 => new string(System.Runtime.InteropServices.MemoryMarshal.Cast<byte, char>(input[1..(1 + ((input.Length - 1) & ~1))])),
            _ => FuzzInput.Latin1(input[1..]),
        };

        CheckKey(text);

        var nul = text.IndexOf('\0', StringComparison.Ordinal);
        var (prefixText, relative) = nul < 0 ? (text, "name") : (text[..nul], text[(nul + 1)..]);
        CheckKey(relative);
        CheckPrefix(prefixText, relative);
    }

    private static void CheckKey(string raw)
    {
        var accepted = StorageKey.TryParse(raw, out var key, out var error);
        Invariant.Check(accepted == FollowsTheRules(raw), $"'{Escape(raw)}': accepted {accepted}, the rules say {!accepted}");
        if (!accepted)
        {
            Invariant.Check(key is null && !string.IsNullOrWhiteSpace(error), "a refused key comes with a reason and no key");
            return;
        }

        Invariant.Check(key!.Value == raw && error is null, "a key is kept exactly as given");
        foreach (var segment in raw.Split('/'))
        {
            Invariant.Check(segment is not ("" or "." or ".."), "no empty, '.' or '..' segment");
        }

        Invariant.Check(!raw.Any(c => c == '\\' || char.IsControl(c)), "no backslash or control character");
        Invariant.Check(key.Name == raw.Split('/')[^1], "Name is the last segment");
        Invariant.Check(
            StorageKey.TryParse(key.Value, out var again, out _) && again == key,
            "a valid key validates again to itself");
    }

    private static void CheckPrefix(string raw, string relative)
    {
        if (!StoragePrefix.TryParse(raw, out var prefix, out _))
        {
            Invariant.Check(raw.Length > 0, "the empty prefix is the root");
            return;
        }

        var expected = raw.Length > 1 && raw[^1] == '/' ? raw[..^1] : raw;
        Invariant.Check(prefix.Value == expected, "a prefix is kept as given, less one trailing '/'");
        Invariant.Check(prefix.IsRoot || FollowsTheRules(prefix.Value), "a non-root prefix follows the key rules");

        if (prefix.TryAppend(relative, out var key, out _))
        {
            Invariant.Check(FollowsTheRules(relative), "only a valid relative path is appended");
            Invariant.Check(key.Value == (prefix.IsRoot ? relative : prefix.Value + "/" + relative), "the key is prefix/relative");
            Invariant.Check(FollowsTheRules(key.Value), "an appended key follows the key rules");
            Invariant.Check(prefix.Contains(key), "the prefix contains the key appended to it");
        }
        else
        {
            Invariant.Check(
                !FollowsTheRules(relative) || !FollowsTheRules(prefix.IsRoot ? relative : prefix.Value + "/" + relative),
                "appending fails only when the relative path or the whole key breaks a rule");
        }

        if (StorageKey.TryParse(relative, out var other, out _))
        {
            Invariant.Check(
                prefix.Contains(other) == (prefix.IsRoot || other.Value.StartsWith(prefix.Value + "/", StringComparison.Ordinal)),
                "Contains means 'under the prefix, whole segments'");
        }
    }

    /// <summary>The key rules of <see cref="StorageKey"/>'s documentation, stated plainly.</summary>
    private static bool FollowsTheRules(string raw)
    {
        if (raw.Length == 0 || raw.Any(c => c < 0x20 || c is (char)0x7F or (>= (char)0x80 and <= (char)0x9F) or '\\'))
        {
            return false;
        }

        int bytes;
        try
        {
            bytes = s_strictUtf8.GetByteCount(raw);
        }
        catch (EncoderFallbackException)
        {
            return false; // an unpaired surrogate
        }

        if (bytes > StorageKey.MaxBytes || raw.Contains("%2F", StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        foreach (var segment in raw.Split('/'))
        {
            if (segment is "" or "." or ".."
                || Encoding.UTF8.GetByteCount(segment) > StorageKey.MaxSegmentBytes
                || segment.StartsWith(".freight", StringComparison.OrdinalIgnoreCase)
                || segment.EndsWith(".freight-tmp", StringComparison.OrdinalIgnoreCase)
                || segment.EndsWith(".freight-meta", StringComparison.OrdinalIgnoreCase))
            {
                return false;
            }
        }

        return true;
    }

    private static string Escape(string text) =>
        string.Concat(text.Select(c => c is >= ' ' and <= '~' ? c.ToString() : $"\\u{(int)c:X4}"));
}
