using System.Diagnostics.CodeAnalysis;

namespace Freight.Files;

/// <summary>
/// Maps keys to paths under a file-system store's root and checks that a path never leaves the root
/// through a symbolic link.
/// </summary>
/// <remarks>
/// <para>Policy: every symbolic link at or below the root is refused — in the middle of a path or as
/// the leaf, dangling or not, pointing outside the root or inside it. Freight never makes links in its
/// data directory, so any link there was put by someone else; resolving targets instead would be
/// racy (a link inside can be re-pointed outside at any time) and multi-hop. The root itself and its
/// ancestors are the operator's choice and are followed. Windows junctions count as links too
/// (<see cref="FileAttributes.ReparsePoint"/>). Hard links cannot be told from plain files cheaply and
/// are not checked; they cannot cross file systems and cannot be made through the API.</para>
/// <para>Limit (TOCTOU): the check and the later open are separate system calls, so a local user who
/// can write to the data directory could swap a directory for a link in between. .NET has no portable
/// O_NOFOLLOW/openat and no portable way to read back an opened handle's path, so this is not closed,
/// only narrowed: check before creating parent directories and again before opening, and write
/// through a temp file renamed into place (rename(2) replaces a link at the destination rather than
/// writing through it). Keep the data directory writable by the service account only.</para>
/// </remarks>
public static class ContainedPath
{
    /// <summary>
    /// The full path of <paramref name="key"/> under <paramref name="root"/> (absolute). Pure string
    /// work: nothing on disk is looked at; use <see cref="TryCombine"/> to check links as well.
    /// </summary>
    public static string Combine(string root, StorageKey key)
    {
        ArgumentNullException.ThrowIfNull(key);
        var relative = Path.DirectorySeparatorChar == '/' ? key.Value : key.Value.Replace('/', Path.DirectorySeparatorChar);
        return Path.Join(NormalizeRoot(root), relative);
    }

    /// <summary>
    /// <see cref="Combine"/>, then <see cref="IsContained"/>. Usable before creating a file (missing
    /// parent directories are fine) and before opening one.
    /// </summary>
    public static bool TryCombine(string root, StorageKey key, [NotNullWhen(true)] out string? fullPath)
    {
        var path = Combine(root, key);
        fullPath = IsContained(root, path) ? path : null;
        return fullPath is not null;
    }

    /// <summary>
    /// Whether <paramref name="fullPath"/> stays under <paramref name="root"/>: it must start with the
    /// root, have no empty, '.' or '..' segment below it, and no component from the first below the root
    /// down to the leaf may be a symbolic link. Components that do not exist yet are fine — nothing
    /// below a missing directory can exist — so this works for a file about to be created.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="root"/> is not an absolute path.</exception>
    public static bool IsContained(string root, string fullPath)
    {
        ArgumentNullException.ThrowIfNull(fullPath);
        root = NormalizeRoot(root);
        if (fullPath.Length == root.Length)
        {
            return string.Equals(fullPath, root, StringComparison.Ordinal);
        }

        // Root "/" already ends with a separator; every other root is followed by one.
        var start = Path.EndsInDirectorySeparator(root) ? root.Length : root.Length + 1;
        if (fullPath.Length <= start
            || !fullPath.StartsWith(root, StringComparison.Ordinal)
            || (start > root.Length && !IsSeparator(fullPath[root.Length])))
        {
            return false;
        }

        // Walk down one component at a time: one lstat each until one is missing, and the text of every
        // segment checked to the end (a missing "x/.." would still climb once "x" is created).
        var segmentStart = start;
        var exists = true;
        for (var i = start; i <= fullPath.Length; i++)
        {
            if (i < fullPath.Length && !IsSeparator(fullPath[i]))
            {
                continue;
            }

            // Refused rather than resolved: "link/.." would climb from the link's target, not from here,
            // and Path.GetFullPath would remove the link from view before it could be checked.
            var segment = fullPath.AsSpan(segmentStart, i - segmentStart);
            if (segment.IsEmpty || segment is "." or "..")
            {
                return false;
            }

            segmentStart = i + 1;
            if (!exists)
            {
                continue;
            }

            // FileSystemInfo.Attributes comes from lstat on Unix (links are not followed) and is -1 when
            // the entry does not exist; nothing can exist below a missing component.
            var attributes = new FileInfo(fullPath[..i]).Attributes;
            if ((int)attributes == -1)
            {
                exists = false;
            }
            else if ((attributes & FileAttributes.ReparsePoint) != 0)
            {
                return false;
            }
        }

        return true;
    }

    private static string NormalizeRoot(string root)
    {
        ArgumentException.ThrowIfNullOrEmpty(root);
        if (!Path.IsPathFullyQualified(root))
        {
            throw new ArgumentException($"The storage root must be an absolute path; '{root}' is not.", nameof(root));
        }

        // GetFullPath only tidies the text ("a/../b", "//"); it does not touch the disk.
        return Path.TrimEndingDirectorySeparator(Path.GetFullPath(root));
    }

    private static bool IsSeparator(char c) => c == Path.DirectorySeparatorChar || c == Path.AltDirectorySeparatorChar;
}
