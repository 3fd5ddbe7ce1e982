using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Freight.Storage.Unix;

/// <summary>
/// The Linux file calls .NET does not offer: opens and leaf operations relative to a directory handle, so a
/// path is resolved by the kernel without following symbolic links (<see cref="ContainedDirectory"/>), and
/// <c>statx</c> for what a handle or a name is without following it. Flag values differ between
/// architectures; <see cref="IsSupported"/> says whether they are known for this process.
/// </summary>
internal static partial class LinuxFiles
{
    private const string Libc = "libc";

    // openat2(2) has the same number on every architecture (the unified syscall table, Linux 5.6).
    private const long SysOpenat2 = 437;

    public const int AtFdCwd = -100;
    public const int AtSymlinkNoFollow = 0x100;
    public const int AtRemoveDir = 0x200;
    public const int AtEmptyPath = 0x1000;

    public const int ORdOnly = 0;
    public const int OWrOnly = 1;
    public const int ORdWr = 2;
    public const int OCreat = 0x40;
    public const int OExcl = 0x80;
    public const int OCloExec = 0x80000;
    public const int ONonBlock = 0x800;
    public const int OPath = 0x200000;

    // x86-64 and arm64 disagree on these two (asm/fcntl.h vs asm-generic/fcntl.h).
    public static readonly int ODirectory = RuntimeInformation.ProcessArchitecture == Architecture.Arm64 ? 0x4000 : 0x10000;
    public static readonly int ONoFollow = RuntimeInformation.ProcessArchitecture == Architecture.Arm64 ? 0x8000 : 0x20000;

    public const ulong ResolveNoMagicLinks = 0x02;
    public const ulong ResolveNoSymlinks = 0x04;
    public const ulong ResolveBeneath = 0x08;

    public const int FallocKeepSize = 1;

    public const uint StatxType = 0x1;
    public const uint StatxMtime = 0x40;
    public const uint StatxIno = 0x100;
    public const uint StatxSize = 0x200;
    public const ushort SIfMt = 0xF000;
    public const ushort SIfDir = 0x4000;
    public const ushort SIfReg = 0x8000;

    public const int EPerm = 1;
    public const int ENoEnt = 2;
    public const int EIntr = 4;
    public const int EAgain = 11;
    public const int EAcces = 13;
    public const int EExist = 17;
    public const int EXDev = 18;
    public const int ENotDir = 20;
    public const int EIsDir = 21;
    public const int EFBig = 27;
    public const int ENoSpc = 28;
    public const int ENoSys = 38;
    public const int ENotEmpty = 39;
    public const int ELoop = 40;

    /// <summary>Linux on an architecture whose open flags are written above.</summary>
    public static bool IsSupported { get; } =
        OperatingSystem.IsLinux() && RuntimeInformation.ProcessArchitecture is Architecture.X64 or Architecture.Arm64;

    /// <summary><c>struct open_how</c> of openat2(2).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct OpenHow
    {
        public ulong Flags;
        public ulong Mode;
        public ulong Resolve;
    }

    /// <summary><c>struct statx</c> (the same layout on every architecture), the fields Freight reads.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 256)]
    public struct Statx
    {
        [FieldOffset(0)] public uint Mask;
        [FieldOffset(28)] public ushort Mode;
        [FieldOffset(32)] public ulong Inode;
        [FieldOffset(40)] public ulong Size;
        [FieldOffset(112)] public long MtimeSeconds;
        [FieldOffset(120)] public uint MtimeNanoseconds;
        [FieldOffset(136)] public uint DeviceMajor;
        [FieldOffset(140)] public uint DeviceMinor;

        public readonly bool IsDirectory => (Mode & SIfMt) == SIfDir;

        public readonly bool IsRegularFile => (Mode & SIfMt) == SIfReg;
    }

    [LibraryImport(Libc, EntryPoint = "syscall", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial long Syscall(long number, SafeFileHandle directory, string path, ref OpenHow how, nuint size);

    /// <summary>openat2(2): a new descriptor (≥ 0) or -1 with the error in <see cref="Marshal.GetLastPInvokeError"/>.</summary>
    public static int Openat2(SafeFileHandle directory, string path, ref OpenHow how) =>
        (int)Syscall(SysOpenat2, directory, path, ref how, (nuint)Marshal.SizeOf<OpenHow>());

    [LibraryImport(Libc, EntryPoint = "openat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Openat(SafeFileHandle directory, string path, int flags, int mode);

    [LibraryImport(Libc, EntryPoint = "mkdirat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Mkdirat(SafeFileHandle directory, string path, int mode);

    [LibraryImport(Libc, EntryPoint = "renameat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Renameat(SafeFileHandle fromDirectory, string from, SafeFileHandle toDirectory, string to);

    [LibraryImport(Libc, EntryPoint = "unlinkat", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Unlinkat(SafeFileHandle directory, string path, int flags);

    [LibraryImport(Libc, EntryPoint = "statx", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    public static partial int StatxAt(SafeFileHandle directory, string path, int flags, uint mask, out Statx result);

    [LibraryImport(Libc, EntryPoint = "fallocate", SetLastError = true)]
    public static partial int Fallocate(SafeFileHandle file, int mode, long offset, long length);
}
