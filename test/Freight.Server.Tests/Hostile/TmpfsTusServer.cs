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

    private bool _mounted;

    /// <summary>The tmpfs: the server's data directory.</summary>
    public string Mount { get; } = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N") + "-tmpfs");

    public override string? FilesDirectory => Path.Combine(Mount, "files");

    public override string? TusDirectory => Path.Combine(Mount, "tus");

    /// <summary>Bytes free on the tmpfs (statvfs), as <c>df</c> shows them.</summary>
    public long FreeBytes => new DriveInfo(Mount).AvailableFreeSpace;

    /// <summary>Fills the tmpfs to the last byte with a file outside the stores, so the next write that needs a block fails.</summary>
    public void Fill()
    {
        using var filler = File.OpenHandle(FillerPath, FileMode.Append, FileAccess.Write);
        var block = new byte[64 * 1024];
        var offset = RandomAccess.GetLength(filler);
        try
        {
            while (true)
            {
                RandomAccess.Write(filler, block, offset);
                offset += block.Length;
            }
        }
        catch (IOException full) when (full.HResult == 28)
        {
            // ENOSPC: full.
        }
    }

    /// <summary>Fills the tmpfs but for <paramref name="bytes"/>.</summary>
    public void FillAllBut(long bytes)
    {
        using var filler = File.OpenHandle(FillerPath, FileMode.Create, FileAccess.Write);
        RandomAccess.Write(filler, new byte[FreeBytes - bytes], 0);
    }

    /// <summary>Frees what <see cref="Fill"/> and <see cref="FillAllBut"/> took.</summary>
    public void Free() => File.Delete(FillerPath);

    private string FillerPath => Path.Combine(Mount, "filler.bin");

    protected override Task<string[]> StartArgumentsAsync()
    {
        Directory.CreateDirectory(Mount);
        if (TmpfsFactAttribute.Available)
        {
            TmpfsFactAttribute.Run("mount", "-t", "tmpfs", "-o", $"size={Size}", "tmpfs", Mount);
            _mounted = true;
        }

        return Task.FromResult<string[]>(["--data-dir", Mount]);
    }

    protected override Task AfterStopAsync()
    {
        if (_mounted)
        {
            TmpfsFactAttribute.Run("umount", Mount);
        }

        Directory.Delete(Mount, recursive: true);
        return Task.CompletedTask;
    }
}
