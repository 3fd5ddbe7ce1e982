using System.Diagnostics.CodeAnalysis;

namespace Freight.Files;

/// <summary>
/// A validated "directory" of keys, for listings and multipart uploads into a folder: either the root
/// (empty) or a path that obeys the <see cref="StorageKey"/> rules, such as <c>photos/2024</c>.
/// </summary>
/// <remarks>
/// Prefixes are whole segments: <c>photos</c> holds <c>photos/a.jpg</c> but not <c>photos-old/a.jpg</c>,
/// which is what a file system's directories give and what S3 gives with delimiter '/'.
/// </remarks>
public sealed record StoragePrefix
{
    private StoragePrefix(string value) => Value = value;

    /// <summary>The empty prefix: every key is under it.</summary>
    public static StoragePrefix Root { get; } = new(string.Empty);

    /// <summary>Empty for the root, else the path with no leading or trailing '/'.</summary>
    public string Value { get; }

    /// <summary>Whether this is the root (no folder).</summary>
    public bool IsRoot => Value.Length == 0;

    /// <summary>
    /// Validates <paramref name="raw"/>. <see langword="null"/> or empty is the root; one trailing '/' is
    /// accepted and dropped, because <c>POST /files/photos/</c> is how people write "into photos".
    /// </summary>
    public static bool TryParse(string? raw, [NotNullWhen(true)] out StoragePrefix? prefix, [NotNullWhen(false)] out string? error)
    {
        if (string.IsNullOrEmpty(raw))
        {
            prefix = Root;
            error = null;
            return true;
        }

        var trimmed = raw.Length > 1 && raw[^1] == '/' ? raw[..^1] : raw;
        error = StorageKeyRules.Validate(trimmed);
        prefix = error is null ? new StoragePrefix(trimmed) : null;
        return prefix is not null;
    }

    /// <summary>
    /// The key for <paramref name="relativePath"/> (a file name, or a relative path such as a browser's
    /// folder upload sends) under this prefix. Fails, with the reason, if the relative path or the whole
    /// key breaks a rule.
    /// </summary>
    public bool TryAppend(string? relativePath, [NotNullWhen(true)] out StorageKey? key, [NotNullWhen(false)] out string? error)
    {
        // The relative part alone first, so a bad name is reported as such and cannot climb with '..'.
        error = StorageKeyRules.Validate(relativePath);
        if (error is null)
        {
            var combined = IsRoot ? relativePath! : string.Concat(Value, "/", relativePath);
            error = StorageKeyRules.Validate(combined);
            if (error is null)
            {
                key = StorageKey.FromValidated(combined);
                return true;
            }
        }

        key = null;
        return false;
    }

    /// <summary>Whether <paramref name="key"/> lies under this prefix (at any depth).</summary>
    public bool Contains(StorageKey key)
    {
        ArgumentNullException.ThrowIfNull(key);
        var value = key.Value;
        return IsRoot
            || (value.Length > Value.Length && value[Value.Length] == '/' && value.StartsWith(Value, StringComparison.Ordinal));
    }

    /// <inheritdoc />
    public override string ToString() => Value;
}
