using System.Buffers;
using System.IO.Enumeration;
using System.Runtime.InteropServices;
using Freight.Files;
using Freight.Storage.Unix;
using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>
/// A store's directory, every file and folder below it reached without following a symbolic link: the one
/// path through which the file-system stores open, create, rename, delete and list. Names are relative,
/// '/'-separated, with no empty, '.' or '..' segment (validated keys, or names the stores make); "" is the
/// directory itself.
/// </summary>
/// <remarks>
/// <para>Policy: a link anywhere below the directory — a folder on the way or the leaf, dangling or not,
/// pointing outside or inside — is never followed: a read finds nothing, a write is refused
/// (<see cref="KeyConflictException"/>), a listing skips it. Freight makes no links, so any link there was
/// put by someone else. The directory itself and its ancestors are the operator's choice and are followed.</para>
/// <para>Linux (x86-64, arm64): the directory is held open, and each operation resolves its path relative to
/// that handle in the kernel — <c>openat2</c> with <c>RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS</c>, or where
/// that call is missing or forbidden (old kernels, seccomp) an <c>openat(O_NOFOLLOW)</c> walk one folder at
/// a time — then acts on the leaf relative to its folder's handle (<c>renameat</c>, <c>unlinkat</c>,
/// <c>mkdirat</c>, <c>statx</c>). No path is looked up twice, so swapping a folder for a link mid-way gains
/// nothing. Elsewhere: <see cref="ContainedPath.IsContained"/> (an lstat walk) before each operation, then
/// the ordinary path call — the window between the two is narrowed, not closed.</para>
/// </remarks>
internal sealed class ContainedDirectory : IDisposable
{
    private const int FileMode = 0x1B6; // 0666, less the umask, as .NET creates files
    private const int FolderMode = 0x1FF; // 0777, less the umask

    private const ulong Beneath = LinuxFiles.ResolveBeneath | LinuxFiles.ResolveNoSymlinks | LinuxFiles.ResolveNoMagicLinks;

    // Linux only: the directory itself, open for lookups (O_PATH) as long as the store lives.
    private readonly SafeFileHandle? _handle;
    private readonly bool _openat2;
    // The held directory's device and inode, to tell whether its path still names it (IsAtItsPath).
    private readonly (uint Major, uint Minor, ulong Inode) _identity;

    /// <param name="directory">Created when missing; a link to it is followed (the operator's choice).</param>
    /// <param name="resolution">
    /// The strongest to use: <see cref="ContainedResolution.Openat2"/> falls back by itself where refused; the
    /// others exist so tests can run each form on Linux.
    /// </param>
    public ContainedDirectory(string directory, ContainedResolution resolution = ContainedResolution.Openat2)
    {
        FullName = Path.TrimEndingDirectorySeparator(Path.GetFullPath(directory));
        Directory.CreateDirectory(FullName);
        if (!LinuxFiles.IsSupported || resolution == ContainedResolution.LstatWalk)
        {
            return;
        }

        using var cwd = new SafeFileHandle(LinuxFiles.AtFdCwd, ownsHandle: false);
        var fd = LinuxFiles.Openat(cwd, FullName, LinuxFiles.OPath | LinuxFiles.ODirectory | LinuxFiles.OCloExec, 0);
        if (fd < 0)
        {
            throw ErrorFor(Marshal.GetLastPInvokeError(), "");
        }

        _handle = new SafeFileHandle(fd, ownsHandle: true);
        _openat2 = resolution == ContainedResolution.Openat2 && Openat2Works(_handle);
        if (LinuxFiles.StatxAt(_handle, "", LinuxFiles.AtEmptyPath, LinuxFiles.StatxIno, out var held) == 0)
        {
            _identity = (held.DeviceMajor, held.DeviceMinor, held.Inode);
        }
    }

    /// <summary>
    /// Throws <see cref="StoreDirectoryMovedException"/> when <see cref="FullName"/> no longer names the directory held
    /// open (moved away, replaced, its volume unmounted): what is written through the handle would land where no one
    /// looks. One statx of the path. Elsewhere (no handle held) the path is all there is, so only its absence counts.
    /// </summary>
    public void ThrowIfMoved()
    {
        if (_handle is null)
        {
            if (!Directory.Exists(FullName))
            {
                throw new StoreDirectoryMovedException($"{FullName} is gone.");
            }

            return;
        }

        using var cwd = new SafeFileHandle(LinuxFiles.AtFdCwd, ownsHandle: false);
        if (LinuxFiles.StatxAt(cwd, FullName, 0, LinuxFiles.StatxIno, out var named) != 0)
        {
            throw new StoreDirectoryMovedException($"{FullName} is gone ({Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}).");
        }

        if ((named.DeviceMajor, named.DeviceMinor, named.Inode) != _identity)
        {
            throw new StoreDirectoryMovedException($"{FullName} is no longer the directory the store opened (moved, replaced or unmounted): restart to use the new one.");
        }
    }

    /// <summary>
    /// Proves the directory can be written: still at its path, and <paramref name="name"/> (a reserved name no key
    /// takes) created and deleted there. Throws what the write threw.
    /// </summary>
    public void ProbeWrite(string name)
    {
        ThrowIfMoved();
        Delete(name);
        CreateNew(name).Dispose();
        Delete(name);
    }

    /// <summary>The directory's absolute path.</summary>
    public string FullName { get; }

    /// <summary>Lets go of the directory (its file system can be unmounted); later operations throw <see cref="ObjectDisposedException"/>.</summary>
    public void Dispose() => _handle?.Dispose();

    /// <summary>How this directory resolves paths, after any fallback.</summary>
    public ContainedResolution Resolution => _handle is null ? ContainedResolution.LstatWalk : _openat2 ? ContainedResolution.Openat2 : ContainedResolution.OpenatWalk;

    /// <summary>The absolute path of <paramref name="relative"/>, for messages and for looking from outside (tests): never opened by this type.</summary>
    public string FullPath(string relative) =>
        relative.Length == 0 ? FullName : Path.Join(FullName, Path.DirectorySeparatorChar == '/' ? relative : relative.Replace('/', Path.DirectorySeparatorChar));

    /// <summary>
    /// Opens an existing regular file; null when there is none at <paramref name="relative"/> — missing, a
    /// folder, or a link (there or on the way).
    /// </summary>
    public SafeFileHandle? TryOpenFile(string relative, FileAccess access)
    {
        if (_handle is null)
        {
            return TryOpenFileByPath(relative, access);
        }

        // O_NONBLOCK: a FIFO planted below the root would hold a read-only open until a writer came (a request
        // stuck for good); on a regular file the flag changes nothing.
        var handle = Open(relative, (access == FileAccess.Read ? LinuxFiles.ORdOnly : LinuxFiles.ORdWr) | LinuxFiles.ONonBlock, 0, out var error);
        if (handle is null)
        {
            return error is LinuxFiles.ENoEnt or LinuxFiles.ENotDir or LinuxFiles.ELoop or LinuxFiles.EXDev or LinuxFiles.EIsDir
                ? null
                : throw ErrorFor(error, relative);
        }

        // A folder opens read-only, and so do a FIFO or a device; only a regular file is an object.
        if (LinuxFiles.StatxAt(handle, "", LinuxFiles.AtEmptyPath, LinuxFiles.StatxType, out var stat) != 0 || !stat.IsRegularFile)
        {
            handle.Dispose();
            return null;
        }

        return handle;
    }

    /// <summary>
    /// Creates a file that must not exist yet (O_EXCL: a link in its place is an error, never followed), and
    /// reserves <paramref name="preallocationSize"/> bytes for it without changing its length.
    /// </summary>
    /// <exception cref="DirectoryNotFoundException">Its folder does not exist.</exception>
    /// <exception cref="KeyConflictException">A link or a file is where a folder on the way should be.</exception>
    public SafeFileHandle CreateNew(string relative, long preallocationSize = 0)
    {
        if (_handle is null)
        {
            Contain(relative);
            return OutOfSpace.CreateReserving(FullPath(relative), preallocationSize);
        }

        var handle = Open(relative, LinuxFiles.OWrOnly | LinuxFiles.OCreat | LinuxFiles.OExcl, FileMode, out var error)
            ?? throw (error == LinuxFiles.ENoEnt ? new DirectoryNotFoundException($"The folder of '{FullPath(relative)}' does not exist.") : ErrorFor(error, relative));
        // As File.OpenHandle does: only running out of space (or past the size limit) fails the creation.
        if (preallocationSize > 0 && LinuxFiles.Fallocate(handle, LinuxFiles.FallocKeepSize, 0, preallocationSize) != 0)
        {
            var failed = Marshal.GetLastPInvokeError();
            if (failed is LinuxFiles.ENoSpc or LinuxFiles.EFBig)
            {
                handle.Dispose();
                Delete(relative);
                throw ErrorFor(failed, relative);
            }
        }

        return handle;
    }

    /// <summary>What is at <paramref name="relative"/>, looked at without following a link there or on the way.</summary>
    public ContainedEntry GetEntry(string relative)
    {
        if (_handle is null)
        {
            if (!ContainedPath.IsContained(FullName, FullPath(relative)))
            {
                return ContainedEntry.Foreign;
            }

            var attributes = new FileInfo(FullPath(relative)).Attributes;
            return (int)attributes == -1 ? ContainedEntry.Missing
                : (attributes & FileAttributes.ReparsePoint) != 0 ? ContainedEntry.Foreign
                : (attributes & FileAttributes.Directory) != 0 ? ContainedEntry.Folder
                : ContainedEntry.File;
        }

        using var folder = OpenFolderOf(relative, out var leaf, out var error);
        if (folder is null)
        {
            return error == LinuxFiles.ENoEnt ? ContainedEntry.Missing : ContainedEntry.Foreign;
        }

        if (LinuxFiles.StatxAt(folder, leaf, LinuxFiles.AtSymlinkNoFollow, LinuxFiles.StatxType, out var stat) != 0)
        {
            var missing = Marshal.GetLastPInvokeError();
            return missing == LinuxFiles.ENoEnt ? ContainedEntry.Missing : throw ErrorFor(missing, relative);
        }

        return stat.IsDirectory ? ContainedEntry.Folder : stat.IsRegularFile ? ContainedEntry.File : ContainedEntry.Foreign;
    }

    /// <summary>Creates the folder <paramref name="relative"/>: true when made, false when something (anything) already has its name.</summary>
    /// <exception cref="DirectoryNotFoundException">Its parent folder does not exist.</exception>
    public bool CreateFolder(string relative)
    {
        if (_handle is null)
        {
            Contain(relative);
            var path = FullPath(relative);
            if (Path.Exists(path))
            {
                return false;
            }

            Directory.CreateDirectory(path);
            return true;
        }

        using var folder = OpenFolderOf(relative, out var leaf, out var error)
            ?? throw (error == LinuxFiles.ENoEnt ? new DirectoryNotFoundException($"The folder of '{FullPath(relative)}' does not exist.") : ErrorFor(error, relative));
        if (LinuxFiles.Mkdirat(folder, leaf, FolderMode) == 0)
        {
            return true;
        }

        var failed = Marshal.GetLastPInvokeError();
        return failed == LinuxFiles.EExist ? false : throw ErrorFor(failed, relative);
    }

    /// <summary>Renames <paramref name="from"/> to <paramref name="to"/>, replacing a file there (a link there is replaced, not written through).</summary>
    public void Rename(string from, string to) => Move(from, this, to);

    /// <summary>
    /// Moves a file to <paramref name="to"/> in <paramref name="target"/>, replacing a file there: a rename,
    /// or across file systems a copy then a delete.
    /// </summary>
    public void Move(string from, ContainedDirectory target, string to)
    {
        ArgumentNullException.ThrowIfNull(target);
        if (_handle is null || target._handle is null)
        {
            // The destination's folder must be contained; a link at the destination itself is replaced by the rename, not followed.
            Contain(from);
            target.Contain(to.LastIndexOf('/') is var slash and >= 0 ? to[..slash] : "");
            File.Move(FullPath(from), target.FullPath(to), overwrite: true);
            return;
        }

        using var fromFolder = OpenFolderOf(from, out var fromLeaf, out var error) ?? throw ErrorFor(error, from);
        using var toFolder = target.OpenFolderOf(to, out var toLeaf, out error) ?? throw target.ErrorFor(error, to);
        if (LinuxFiles.Renameat(fromFolder, fromLeaf, toFolder, toLeaf) == 0)
        {
            return;
        }

        error = Marshal.GetLastPInvokeError();
        if (error != LinuxFiles.EXDev)
        {
            throw error is LinuxFiles.EIsDir or LinuxFiles.ENotEmpty or LinuxFiles.EExist
                ? new KeyConflictException($"'{to}' is a folder; a file cannot take its name.")
                : ErrorFor(error, from);
        }

        CopyAcross(from, target, to);
    }

    private void CopyAcross(string from, ContainedDirectory target, string to)
    {
        var temp = to + ".copy" + FileSystemObjectStore.TempSuffix;
        using (var source = TryOpenFile(from, FileAccess.Read) ?? throw new FileNotFoundException($"'{FullPath(from)}' is gone.", FullPath(from)))
        using (var copy = target.CreateNew(temp, RandomAccess.GetLength(source)))
        {
            var buffer = ArrayPool<byte>.Shared.Rent(1024 * 1024);
            try
            {
                int read;
                for (long offset = 0; (read = RandomAccess.Read(source, buffer, offset)) > 0; offset += read)
                {
                    RandomAccess.Write(copy, buffer.AsSpan(0, read), offset);
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        target.Rename(temp, to);
        Delete(from);
    }

    /// <summary>Removes the file (or the link itself, never its target) at <paramref name="relative"/>; false when there was none.</summary>
    public bool Delete(string relative)
    {
        if (_handle is null)
        {
            if (!ContainedPath.IsContained(FullName, FullPath(relative)) || !File.Exists(FullPath(relative)))
            {
                return false;
            }

            File.Delete(FullPath(relative));
            return true;
        }

        using var folder = OpenFolderOf(relative, out var leaf, out var error);
        if (folder is null)
        {
            return false;
        }

        if (LinuxFiles.Unlinkat(folder, leaf, 0) == 0)
        {
            return true;
        }

        error = Marshal.GetLastPInvokeError();
        return error is LinuxFiles.ENoEnt or LinuxFiles.EIsDir ? false : throw ErrorFor(error, relative);
    }

    /// <summary>Removes the folder at <paramref name="relative"/> if it is empty; false when it is not, is gone, or is not a folder.</summary>
    public bool DeleteEmptyFolder(string relative)
    {
        if (_handle is null)
        {
            try
            {
                Contain(relative);
                Directory.Delete(FullPath(relative));
                return true;
            }
            catch (Exception kept) when (kept is IOException or UnauthorizedAccessException or KeyConflictException)
            {
                return false;
            }
        }

        using var folder = OpenFolderOf(relative, out var leaf, out _);
        return folder is not null && LinuxFiles.Unlinkat(folder, leaf, LinuxFiles.AtRemoveDir) == 0;
    }

    /// <summary>
    /// The regular files below the directory (relative, '/'-separated), never entering a linked folder nor
    /// naming a link. Names only: whoever opens one goes through <see cref="TryOpenFile"/>, so a folder swapped
    /// for a link while this runs yields names at worst, never bytes.
    /// </summary>
    public IEnumerable<string> EnumerateFiles(bool recursive)
    {
        var root = FullName;
        var options = new EnumerationOptions { RecurseSubdirectories = recursive, IgnoreInaccessible = true, AttributesToSkip = 0 };
        return new FileSystemEnumerable<string>(root, (ref FileSystemEntry entry) => RelativeName(root, ref entry), options)
        {
            ShouldIncludePredicate = static (ref FileSystemEntry entry) => !entry.IsDirectory && (entry.Attributes & FileAttributes.ReparsePoint) == 0,
            ShouldRecursePredicate = static (ref FileSystemEntry entry) => (entry.Attributes & FileAttributes.ReparsePoint) == 0,
        };
    }

    private static string RelativeName(string root, ref FileSystemEntry entry)
    {
        var path = entry.ToFullPath();
        var relative = path.Length > root.Length ? path[(root.Length + 1)..] : "";
        return Path.DirectorySeparatorChar == '/' ? relative : relative.Replace(Path.DirectorySeparatorChar, '/');
    }

    /// <summary>Opens <paramref name="relative"/> beneath the directory with O_NOFOLLOW; null with the errno when it fails.</summary>
    private SafeFileHandle? Open(string relative, int flags, int mode, out int error)
    {
        flags |= LinuxFiles.ONoFollow | LinuxFiles.OCloExec;
        if (relative.Length == 0)
        {
            relative = ".";
        }

        if (_openat2)
        {
            var how = new LinuxFiles.OpenHow { Flags = (ulong)flags, Mode = (ulong)mode, Resolve = Beneath };
            for (var attempt = 0; ; attempt++)
            {
                var fd = LinuxFiles.Openat2(_handle!, relative, ref how);
                if (fd >= 0)
                {
                    error = 0;
                    return new SafeFileHandle(fd, ownsHandle: true);
                }

                error = Marshal.GetLastPInvokeError();
                // EAGAIN: a rename elsewhere in the tree raced the kernel's RESOLVE_BENEATH check; it asks for a retry.
                if (error is not (LinuxFiles.EAgain or LinuxFiles.EIntr) || attempt == 8)
                {
                    return null;
                }
            }
        }

        return Walk(relative, flags, mode, out error);
    }

    /// <summary>The fallback: one openat(O_PATH | O_DIRECTORY | O_NOFOLLOW) per folder, then the leaf relative to the last.</summary>
    private SafeFileHandle? Walk(string relative, int flags, int mode, out int error)
    {
        var current = _handle!;
        SafeFileHandle? owned = null;
        try
        {
            var start = 0;
            for (var slash = relative.IndexOf('/', start); slash >= 0; start = slash + 1, slash = relative.IndexOf('/', start))
            {
                var segment = relative[start..slash];
                var fd = LinuxFiles.Openat(current, segment, LinuxFiles.OPath | LinuxFiles.ODirectory | LinuxFiles.ONoFollow | LinuxFiles.OCloExec, 0);
                if (fd < 0)
                {
                    error = Marshal.GetLastPInvokeError();
                    return null;
                }

                owned?.Dispose();
                current = owned = new SafeFileHandle(fd, ownsHandle: true);
            }

            var leaf = LinuxFiles.Openat(current, relative[start..], flags, mode);
            if (leaf < 0)
            {
                error = Marshal.GetLastPInvokeError();
                return null;
            }

            error = 0;
            return new SafeFileHandle(leaf, ownsHandle: true);
        }
        finally
        {
            owned?.Dispose();
        }
    }

    /// <summary>The folder holding <paramref name="relative"/>, opened beneath the directory; <paramref name="leaf"/> is the name in it.</summary>
    private SafeFileHandle? OpenFolderOf(string relative, out string leaf, out int error)
    {
        var slash = relative.LastIndexOf('/');
        leaf = relative[(slash + 1)..];
        if (slash < 0)
        {
            // The directory itself: its own handle, lent (disposing the loan leaves it open).
            error = 0;
            return new SafeFileHandle(_handle!.DangerousGetHandle(), ownsHandle: false);
        }

        return Open(relative[..slash], LinuxFiles.OPath | LinuxFiles.ODirectory, 0, out error);
    }

    private SafeFileHandle? TryOpenFileByPath(string relative, FileAccess access)
    {
        var path = FullPath(relative);
        if (!ContainedPath.IsContained(FullName, path))
        {
            return null;
        }

        try
        {
            return File.OpenHandle(path, System.IO.FileMode.Open, access, FileShare.ReadWrite | FileShare.Delete);
        }
        catch (Exception missing) when (missing is FileNotFoundException or DirectoryNotFoundException or UnauthorizedAccessException)
        {
            // A directory opens as UnauthorizedAccess: not a file either way.
            return null;
        }
    }

    private void Contain(string relative)
    {
        if (relative.Length > 0 && !ContainedPath.IsContained(FullName, FullPath(relative)))
        {
            throw Refused(relative);
        }
    }

    private static KeyConflictException Refused(string relative) =>
        new($"'{relative}' passes through a symbolic link or a file where a folder should be; the store follows no link below its root.");

    /// <summary>The exception .NET would throw for <paramref name="error"/>, or a conflict when the path meets a link.</summary>
    private Exception ErrorFor(int error, string relative)
    {
        var path = FullPath(relative);
        var message = $"{Marshal.GetPInvokeErrorMessage(error)} : '{path}'";
        return error switch
        {
            LinuxFiles.ELoop or LinuxFiles.ENotDir or LinuxFiles.EXDev => Refused(relative),
            LinuxFiles.ENoEnt => new FileNotFoundException(message, path),
            LinuxFiles.EAcces or LinuxFiles.EPerm => new UnauthorizedAccessException(message),
            // As .NET's own errors: the errno is the HResult.
            _ => new IOException(message, error),
        };
    }

    /// <summary>Whether openat2 answers here: missing before Linux 5.6, and a seccomp filter may refuse it (ENOSYS or EPERM).</summary>
    private static bool Openat2Works(SafeFileHandle directory)
    {
        var how = new LinuxFiles.OpenHow { Flags = (ulong)(LinuxFiles.OPath | LinuxFiles.ODirectory | LinuxFiles.OCloExec), Resolve = Beneath };
        var fd = LinuxFiles.Openat2(directory, ".", ref how);
        if (fd < 0)
        {
            return false;
        }

        new SafeFileHandle(fd, ownsHandle: true).Dispose();
        return true;
    }
}

/// <summary>How a <see cref="ContainedDirectory"/> resolves a path without following links, strongest first.</summary>
internal enum ContainedResolution
{
    /// <summary>Linux: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) beneath the held root; race-free.</summary>
    Openat2,

    /// <summary>Linux without openat2 (before 5.6, or refused by seccomp): openat(O_NOFOLLOW) one folder at a time; race-free.</summary>
    OpenatWalk,

    /// <summary>Elsewhere: an lstat per component before each path call; narrows the race, does not close it.</summary>
    LstatWalk,
}

/// <summary>What a name in a <see cref="ContainedDirectory"/> is, seen without following links.</summary>
internal enum ContainedEntry
{
    Missing,
    File,
    Folder,

    /// <summary>A link (there or on the way), or something neither file nor folder: not the store's.</summary>
    Foreign,
}
