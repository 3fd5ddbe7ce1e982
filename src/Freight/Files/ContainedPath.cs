namespace Freight.Files;

/// <summary>
/// The portable half of <see cref="Storage.ContainedDirectory"/>: checks that a path never leaves a store's
/// root through a symbolic link, by looking at each component (lstat) before the operation. Used where the
/// kernel cannot resolve a path beneath a directory handle itself (not Linux).
/// </summary>
/// <remarks>
/// <para>Policy: every symbolic link below the root is refused — in the middle of a path or as the leaf,
/// dangling or not, pointing outside the root or inside it. Windows junctions count as links too
/// (<see cref="FileAttributes.ReparsePoint"/>). Hard links cannot be told from plain files cheaply and
/// are not checked; they cannot cross file systems and cannot be made through the API.</para>
/// <para>Limit (TOCTOU): the check and the later call are separate system calls, so a local user who
/// can write to the data directory could swap a directory for a link in between. This is narrowed, not
/// closed: the check runs before every operation, and writes go through a temp file renamed into place
/// (a rename replaces a link at the destination rather than writing through it). Keep the data directory
/// writable by the service account only. On Linux the kernel does the resolution and there is no window.</para>
/// </remarks>
internal static class ContainedPath
{
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
