using System.Runtime.InteropServices;
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
internal readonly partial record struct FileVersion(ulong? Inode, long Length, DateTime LastWriteUtc)
{
    // statx(2) mask bits and flag (include/uapi/linux/stat.h and fcntl.h, the same on every architecture).
    private const uint StatxMtime = 0x40;
    private const uint StatxIno = 0x100;
    private const uint StatxSize = 0x200;
    private const int AtEmptyPath = 0x1000;

    private static bool s_statxMissing = !OperatingSystem.IsLinux();

    public static FileVersion Of(SafeFileHandle handle)
    {
        if (!s_statxMissing)
        {
            const uint Wanted = StatxIno | StatxSize | StatxMtime;
            if (Statx(handle, "", AtEmptyPath, Wanted, out var stat) != 0)
            {
                // ENOSYS or EPERM (an old kernel, a seccomp filter): every later call would fail the same way.
                s_statxMissing = Marshal.GetLastPInvokeError() is 38 or 1;
            }
            else if ((stat.Mask & Wanted) == Wanted)
            {
                // The same instant File.GetLastWriteTimeUtc reads (fstat's st_mtim), to the 100 ns a DateTime holds.
                var lastWrite = DateTime.UnixEpoch.AddTicks((stat.MtimeSeconds * TimeSpan.TicksPerSecond) + (stat.MtimeNanoseconds / TimeSpan.NanosecondsPerTick));
                return new FileVersion(stat.Inode, (long)stat.Size, lastWrite);
            }
        }

        return new FileVersion(null, RandomAccess.GetLength(handle), File.GetLastWriteTimeUtc(handle));
    }

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Statx(SafeFileHandle directory, string path, int flags, uint mask, out StatxBuffer result);

    /// <summary><c>struct statx</c> (one layout on every architecture), the fields read here.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 256)]
    private struct StatxBuffer
    {
        [FieldOffset(0)] public uint Mask;
        [FieldOffset(32)] public ulong Inode;
        [FieldOffset(40)] public ulong Size;
        [FieldOffset(112)] public long MtimeSeconds;
        [FieldOffset(120)] public uint MtimeNanoseconds;
    }
}
