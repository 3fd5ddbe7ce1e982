using System.Globalization;

namespace Freight.Files;

/// <summary>
/// The rules every stored object's key obeys, shared by <see cref="StorageKey"/> and
/// <see cref="StoragePrefix"/>. One left-to-right pass; the first problem found is reported as a
/// sentence fit for a problem+json <c>detail</c>.
/// </summary>
/// <remarks>
/// Keys are kept exactly as given — no Unicode normalization, no case folding, no dot-segment
/// resolution: anything that would need resolving is refused instead, so a key means the same
/// thing to the file-system, memory and S3 stores.
/// </remarks>
internal static class StorageKeyRules
{
    /// <summary>S3's own key limit, so every store can hold every key.</summary>
    public const int MaxBytes = 1024;

    /// <summary>NAME_MAX on ext4, XFS and btrfs: a longer segment cannot be a file name.</summary>
    /// <summary>
    /// 240, not Linux's 255-byte file-name limit: the file-system store keeps a hidden sidecar
    /// <c>.{name}.freight-meta</c> beside each file, 15 bytes longer than the name.
    /// </summary>
    public const int MaxSegmentBytes = 240;

    /// <summary>Names the file-system store may use for its own hidden files.</summary>
    internal const string ReservedPrefix = ".freight";

    /// <summary>Suffix of in-progress writes.</summary>
    internal const string ReservedTempSuffix = Storage.FileSystemObjectStore.TempSuffix;

    /// <summary>Suffix of metadata sidecars.</summary>
    internal const string ReservedMetaSuffix = Storage.FileSystemMetadata.Suffix;

    /// <summary>Returns <see langword="null"/> when <paramref name="raw"/> is a valid key, else why not.</summary>
    public static string? Validate(string? raw)
    {
        if (string.IsNullOrEmpty(raw))
        {
            return "The path is empty; it must name a file, such as 'reports/2024.csv'.";
        }

        // Every char is at least one UTF-8 byte, so a longer string cannot fit; this also bounds the scan.
        if (raw.Length > MaxBytes)
        {
            return Invariant($"The path is at least {raw.Length} bytes long in UTF-8; the limit is {MaxBytes}.");
        }

        if (raw[0] == '/')
        {
            return "The path must be relative: it must not start with '/'.";
        }

        if (raw[^1] == '/')
        {
            return "The path must not end with '/': it must name a file, not a directory.";
        }

        var totalBytes = 0;
        var segmentStart = 0;
        var segmentBytes = 0;
        var segmentNumber = 1;
        for (var i = 0; i < raw.Length; i++)
        {
            var c = raw[i];
            int bytes;
            if (c == '/')
            {
                var segmentError = ValidateSegment(raw.AsSpan(segmentStart, i - segmentStart), segmentNumber, segmentBytes);
                if (segmentError is not null)
                {
                    return segmentError;
                }

                totalBytes++;
                segmentStart = i + 1;
                segmentBytes = 0;
                segmentNumber++;
                continue;
            }

            if (c < 0x80)
            {
                if (c < 0x20 || c == 0x7F)
                {
                    return ControlCharacter(c, i);
                }

                if (c == '\\')
                {
                    return Invariant($"The path contains a backslash at character {i + 1}; separate segments with '/' and do not use '\\' in names.");
                }

                // Kestrel decodes every %XX in the path except %2F, so a '%2F' here is either an encoded
                // '/' or a literal "%2F" the client sent as %252F — the two cannot be told apart.
                if (c == '%' && i + 2 < raw.Length && raw[i + 1] == '2' && (raw[i + 2] | 0x20) == 'f')
                {
                    return Invariant($"The path contains '%2F' at character {i + 1}: an encoded '/' cannot be told from a literal \"%2F\" in a name, so neither is allowed; separate segments with '/'.");
                }

                bytes = 1;
            }
            else if (c < 0xA0)
            {
                // C1 controls (U+0080–U+009F): invisible, and NEL (U+0085) breaks lines in some tools.
                return ControlCharacter(c, i);
            }
            else if (c < 0x800)
            {
                bytes = 2;
            }
            else if (char.IsHighSurrogate(c))
            {
                if (i + 1 >= raw.Length || !char.IsLowSurrogate(raw[i + 1]))
                {
                    return LoneSurrogate(c, i);
                }

                bytes = 4;
                i++;
            }
            else if (char.IsLowSurrogate(c))
            {
                return LoneSurrogate(c, i);
            }
            else
            {
                bytes = 3;
            }

            segmentBytes += bytes;
            totalBytes += bytes;
        }

        var lastError = ValidateSegment(raw.AsSpan(segmentStart), segmentNumber, segmentBytes);
        if (lastError is not null)
        {
            return lastError;
        }

        return totalBytes > MaxBytes
            ? Invariant($"The path is {totalBytes} bytes long in UTF-8; the limit is {MaxBytes}.")
            : null;
    }

    private static string? ValidateSegment(ReadOnlySpan<char> segment, int number, int bytes)
    {
        if (segment.IsEmpty)
        {
            return Invariant($"Segment {number} of the path is empty ('//'); every segment between '/' must have a name.");
        }

        if (segment is "." or "..")
        {
            return Invariant($"Segment {number} of the path is '{segment.ToString()}'; '.' and '..' are not allowed in paths.");
        }

        if (bytes > MaxSegmentBytes)
        {
            return Invariant($"Segment {number} of the path is {bytes} bytes long in UTF-8; the limit is {MaxSegmentBytes}.");
        }

        // The file-system store keeps temp files ('.{guid}.freight-tmp') and metadata sidecars
        // ('.{name}.freight-meta') beside the files, and may keep more under '.freight*'. Ignoring case
        // keeps a case-insensitive file system from aliasing them. Other hidden names ('.env') are fine.
        if (segment.StartsWith(ReservedPrefix, StringComparison.OrdinalIgnoreCase)
            || segment.EndsWith(ReservedTempSuffix, StringComparison.OrdinalIgnoreCase)
            || segment.EndsWith(ReservedMetaSuffix, StringComparison.OrdinalIgnoreCase))
        {
            return Invariant($"Segment {number} of the path, '{segment.ToString()}', is reserved for the store's own files: names must not start with '{ReservedPrefix}' or end with '{ReservedTempSuffix}' or '{ReservedMetaSuffix}'.");
        }

        return null;
    }

    private static string ControlCharacter(char c, int index) =>
        Invariant($"The path contains the control character U+{(int)c:X4} at character {index + 1}; control characters are not allowed.");

    private static string LoneSurrogate(char c, int index) =>
        Invariant($"The path contains an unpaired UTF-16 surrogate U+{(int)c:X4} at character {index + 1}; it is not valid Unicode text.");

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
