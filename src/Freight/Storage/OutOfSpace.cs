using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>
/// Recognises a write that failed because the storage is full (ENOSPC) or the owner's quota is spent (EDQUOT):
/// the one place that knows how the runtime reports it, so the server can answer 507 rather than 500.
/// </summary>
public static class OutOfSpace
{
    // On Unix .NET puts the errno in IOException.HResult (checked on Linux: a write to a full tmpfs gives 28).
    private const int Enospc = 28;
    private const int LinuxEdquot = 122;
    private const int BsdEdquot = 69; // macOS and the BSDs

    // On Windows, HRESULT_FROM_WIN32(ERROR_HANDLE_DISK_FULL) and HRESULT_FROM_WIN32(ERROR_DISK_FULL).
    private const int WindowsHandleDiskFull = unchecked((int)0x80070027);
    private const int WindowsDiskFull = unchecked((int)0x80070070);

    /// <summary>Whether <paramref name="exception"/>, or one it wraps, is a write refused for lack of space.</summary>
    public static bool Is(Exception? exception)
    {
        for (var current = exception; current is not null; current = current.InnerException)
        {
            if (current is IOException { HResult: var code } && IsOutOfSpaceCode(code))
            {
                return true;
            }
        }

        return false;
    }

    private static bool IsOutOfSpaceCode(int code) =>
        OperatingSystem.IsWindows()
            ? code is WindowsHandleDiskFull or WindowsDiskFull
            : code == Enospc || code == (OperatingSystem.IsLinux() ? LinuxEdquot : BsdEdquot);

    /// <summary>
    /// Creates <paramref name="path"/> (which must not exist) for writing with <paramref name="reserveBytes"/> reserved
    /// (fallocate), or without a reservation when the file system cannot hold it. .NET reports a reservation that does
    /// not fit as a bare IOException without the errno (and removes the file); the writes then fail with ENOSPC or
    /// EDQUOT at the byte that does not fit, which <see cref="Is"/> recognises.
    /// </summary>
    internal static SafeFileHandle CreateReserving(string path, long reserveBytes)
    {
        if (reserveBytes > 0)
        {
            try
            {
                return File.OpenHandle(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, FileOptions.None, reserveBytes);
            }
            catch (IOException) when (!File.Exists(path))
            {
                // The reservation did not fit (or the file system refuses it): write without one.
            }
        }

        return File.OpenHandle(path, FileMode.CreateNew, FileAccess.Write, FileShare.None);
    }
}
