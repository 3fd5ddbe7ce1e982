using System.Net.Sockets;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// sendfile(2): the kernel copies file pages to a socket, the bytes never enter the process. .NET's own sendfile
/// (Socket.SendFile, SendPacketsAsync) takes a path or an async-opened FileStream and an int count; Freight's
/// handles are opened synchronously and its ranges are longs, hence the call itself.
/// </summary>
internal static partial class LinuxSendFile
{
    public const int EIntr = 4;
    public const int EAgain = 11;

    /// <summary>
    /// Most bytes asked of one call: Linux moves at most 0x7ffff000 bytes per sendfile whatever is asked
    /// (read_write.c, MAX_RW_COUNT), so a larger range takes several calls.
    /// </summary>
    public const long MaxBytesPerCall = 0x7ffff000;

    /// <summary>
    /// Linux on x86-64 or arm64, where glibc's <c>sendfile</c> takes a 64-bit <c>off_t</c> (no sendfile64 needed):
    /// offsets past 2 and 4 GiB pass whole.
    /// </summary>
    public static bool IsSupported { get; } =
        OperatingSystem.IsLinux() && RuntimeInformation.ProcessArchitecture is Architecture.X64 or Architecture.Arm64;

    /// <summary>
    /// Sends up to <paramref name="count"/> bytes of <paramref name="file"/> from <paramref name="offset"/>, which
    /// the kernel moves past what it sent; the file's own position is untouched (positional, like pread).
    /// Returns the bytes sent, 0 at the end of the file, or -1 with <paramref name="errno"/> set.
    /// </summary>
    public static long Send(SafeSocketHandle socket, SafeFileHandle file, ref long offset, long count, out int errno)
    {
        var sent = SendFile(socket, file, ref offset, (nuint)Math.Min(count, MaxBytesPerCall));
        errno = sent < 0 ? Marshal.GetLastPInvokeError() : 0;
        return sent;
    }

    [LibraryImport("libc", EntryPoint = "sendfile", SetLastError = true)]
    private static partial nint SendFile(SafeSocketHandle outFd, SafeFileHandle inFd, ref long offset, nuint count);
}
