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

    // The client is gone: its end reset the connection, or closed it and the kernel saw that before this send.
    public const int EPipe = 32;
    public const int EConnReset = 104;

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

    /// <summary>
    /// Sends what it can of <paramref name="bytes"/> without waiting (MSG_DONTWAIT), telling TCP that more follows at
    /// once (MSG_MORE): bytes that sendfile(2) follows leave in the same segments as the file's first bytes instead of
    /// a segment of their own, as nginx's tcp_nopush (TCP_CORK) makes them. The last piece of a sendfile is sent
    /// without MSG_MORE, which pushes both. Server CPU per 1 MiB response under wrk: 260 µs without, 181 µs with
    /// (medians of 5 rounds, docs/results/2026-11-25-small-files.md). Returns the bytes taken (fewer when the send buffer is full), or -1 with
    /// <paramref name="errno"/> set.
    /// </summary>
    public static long SendMore(SafeSocketHandle socket, ReadOnlySpan<byte> bytes, out int errno)
    {
        var sent = Send(socket, ref MemoryMarshal.GetReference(bytes), (nuint)bytes.Length, MsgDontWait | MsgNoSignal | MsgMore);
        errno = sent < 0 ? Marshal.GetLastPInvokeError() : 0;
        return sent;
    }

    // linux/socket.h, the same on every architecture. MSG_NOSIGNAL: a closed peer is an error (EPIPE), not a SIGPIPE.
    private const int MsgDontWait = 0x40;
    private const int MsgNoSignal = 0x4000;
    private const int MsgMore = 0x8000;

    [LibraryImport("libc", EntryPoint = "send", SetLastError = true)]
    private static partial nint Send(SafeSocketHandle socket, ref byte buffer, nuint length, int flags);

    [LibraryImport("libc", EntryPoint = "sendfile", SetLastError = true)]
    private static partial nint SendFile(SafeSocketHandle outFd, SafeFileHandle inFd, ref long offset, nuint count);
}
