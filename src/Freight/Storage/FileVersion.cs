using System.Runtime.InteropServices;
using Freight.Storage.Unix;
using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>
/// Which version of a data file an open handle holds: its inode number, length and modification time, from
/// one <c>statx</c> of the handle. Every commit renames a new temp file into place, so every version has an
/// inode of its own (a rename keeps it), and an inode cannot be reused while any handle holds the old file
/// open — a reader's handle and a sidecar naming the same inode describe the same file, however close
/// together two commits land. Length and modification time still catch a file rewritten in place. Where
/// <c>statx</c> is missing (not Linux, Linux before 4.11, a sandbox refusing it) <see cref="Inode"/> is null
/// and the version is length and modification time alone: two same-length commits in one clock tick are then
/// told apart only under the key's lock (see <see cref="FileSystemMetadata"/>).
/// </summary>
internal readonly record struct FileVersion(ulong? Inode, long Length, DateTime LastWriteUtc)
{
    /// <summary>The <c>statx</c> fields a version is made of.</summary>
    public const uint Wanted = LinuxFiles.StatxIno | LinuxFiles.StatxSize | LinuxFiles.StatxMtime;

    private static bool s_statxMissing = !LinuxFiles.IsSupported;

    public static FileVersion Of(SafeFileHandle handle)
    {
        if (!s_statxMissing)
        {
            if (LinuxFiles.StatxAt(handle, "", LinuxFiles.AtEmptyPath, Wanted, out var stat) != 0)
            {
                // ENOSYS or EPERM (an old kernel, a seccomp filter): every later call would fail the same way.
                s_statxMissing = Marshal.GetLastPInvokeError() is LinuxFiles.ENoSys or LinuxFiles.EPerm;
            }
            else if (From(stat) is { } version)
            {
                return version;
            }
        }

        return new FileVersion(null, RandomAccess.GetLength(handle), File.GetLastWriteTimeUtc(handle));
    }

    /// <summary>The version a <c>statx</c> asked for <see cref="Wanted"/> describes; null when the kernel did not fill all of it.</summary>
    public static FileVersion? From(in LinuxFiles.Statx stat)
    {
        if ((stat.Mask & Wanted) != Wanted)
        {
            return null;
        }

        // The same instant File.GetLastWriteTimeUtc reads (fstat's st_mtim), to the 100 ns a DateTime holds.
        var lastWrite = DateTime.UnixEpoch.AddTicks((stat.MtimeSeconds * TimeSpan.TicksPerSecond) + (stat.MtimeNanoseconds / TimeSpan.NanosecondsPerTick));
        return new FileVersion(stat.Inode, (long)stat.Size, lastWrite);
    }
}
