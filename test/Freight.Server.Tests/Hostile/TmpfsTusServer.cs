using Freight.Server.Tests.Tus;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// A file-system server (files and tus) whose data directory is a tmpfs of <see cref="Size"/> bytes, mounted for the
/// fixture and unmounted after it: real ENOSPC on every write path. Needs root (CI runs as root); elsewhere the tests
/// are skipped (<see cref="TmpfsFactAttribute"/>) and the server runs on an ordinary directory.
/// </summary>
// Tus:MinFreeBytes 0: the creation quota's free-space margin (1 GiB) would refuse every creation on this small disk
// before a byte is written (TusFreeSpaceTests covers that 507); these tests are about the writes that find it full.
public sealed class TmpfsTusServer() : TusServer("--Freight:Files:MaxConcurrentUploadsPerClient", "64", "--Freight:Tus:MinFreeBytes", "0")
{
    /// <summary>Small enough to fill in a moment, large enough for the few-MiB uploads the tests send before it is full.</summary>
    public const long Size = 8 * 1024 * 1024;

    private readonly Tmpfs _tmpfs = new();

    /// <summary>The tmpfs: the server's data directory.</summary>
    public string Mount => _tmpfs.Path;

    public override string? FilesDirectory => Path.Combine(Mount, "files");

    public override string? TusDirectory => Path.Combine(Mount, "tus");

    /// <summary>Bytes free on the tmpfs (statvfs), as <c>df</c> shows them.</summary>
    public long FreeBytes => _tmpfs.FreeBytes;

    /// <summary>Fills the tmpfs to the last byte with a file outside the stores, so the next write that needs a block fails.</summary>
    public void Fill() => _tmpfs.Fill();

    /// <summary>Fills the tmpfs but for <paramref name="bytes"/>.</summary>
    public void FillAllBut(long bytes) => _tmpfs.FillAllBut(bytes);

    /// <summary>Frees what <see cref="Fill"/> and <see cref="FillAllBut"/> took.</summary>
    public void Free() => _tmpfs.Free();

    protected override Task<string[]> StartArgumentsAsync()
    {
        _tmpfs.Mount(Size);
        return Task.FromResult<string[]>(["--data-dir", Mount]);
    }

    protected override Task AfterStopAsync()
    {
        _tmpfs.Dispose();
        return Task.CompletedTask;
    }
}
