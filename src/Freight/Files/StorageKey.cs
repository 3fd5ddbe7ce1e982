using System.Diagnostics.CodeAnalysis;

namespace Freight.Files;

/// <summary>
/// A validated object key: a relative, '/'-separated path such as <c>reports/2024/q1.csv</c>.
/// Only <see cref="TryParse"/> makes one, so holding a <see cref="StorageKey"/> means the rules held.
/// </summary>
/// <remarks>
/// <para>Rules: non-empty; at most 1024 UTF-8 bytes in all and 240 per segment; no empty segment
/// (no leading '/', '//' or trailing '/'); no '.' or '..' segment; no backslash; no control character
/// (U+0000–U+001F, U+007F, U+0080–U+009F); no unpaired surrogate; no '%2F'; no segment starting with
/// '.freight' or ending with '.freight-tmp' or '.freight-meta' (the store's own files). Other hidden
/// names such as '.env' are allowed.</para>
/// <para>No Unicode normalization: keys are compared and stored byte for byte, as S3 and Linux file
/// systems do, so 'é' sent precomposed (NFC) and decomposed (NFD, as macOS clients may send it) are two
/// different keys. Normalizing is not an option here anyway: under InvariantGlobalization (set in
/// Directory.Build.props) <see cref="string.Normalize()"/> returns non-ASCII text unchanged.</para>
/// <para>Input is the route's catch-all value as ASP.NET Core gives it. Kestrel has already
/// percent-decoded the path — except '%2F', which it leaves as the three characters "%2F" — and has
/// removed '.' and '..' segments (RFC 3986 §5.2.4), so <c>/files/a/../b</c> arrives as <c>b</c>; keys from
/// elsewhere (multipart file names, listings) get no such help, hence the checks here.</para>
/// </remarks>
public sealed record StorageKey
{
    /// <summary>The most UTF-8 bytes a key may have (S3's limit).</summary>
    public const int MaxBytes = StorageKeyRules.MaxBytes;

    /// <summary>The most UTF-8 bytes one segment may have (NAME_MAX on Linux file systems).</summary>
    public const int MaxSegmentBytes = StorageKeyRules.MaxSegmentBytes;

    private StorageKey(string value) => Value = value;

    /// <summary>The key exactly as given, '/'-separated, with no leading or trailing '/'.</summary>
    public string Value { get; }

    /// <summary>The last segment: the file's own name.</summary>
    public string Name => Value[(Value.LastIndexOf('/') + 1)..];

    /// <summary>
    /// Validates <paramref name="raw"/>. On failure <paramref name="error"/> says why, in a sentence fit
    /// for a problem+json <c>detail</c>.
    /// </summary>
    public static bool TryParse(string? raw, [NotNullWhen(true)] out StorageKey? key, [NotNullWhen(false)] out string? error)
    {
        error = StorageKeyRules.Validate(raw);
        key = error is null ? new StorageKey(raw!) : null;
        return key is not null;
    }

    /// <summary>Wraps a key already known to be valid (from <see cref="StoragePrefix"/>).</summary>
    internal static StorageKey FromValidated(string value) => new(value);

    /// <inheritdoc />
    public override string ToString() => Value;
}
