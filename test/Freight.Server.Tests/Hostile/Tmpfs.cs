namespace Freight.Server.Tests.Hostile;

/// <summary>
/// A directory of a test's own that becomes a tmpfs of a given size once <see cref="Mount"/>ed: real ENOSPC (or EROFS)
/// for what is written there. Mounted only where <see cref="TmpfsFactAttribute"/> says a tmpfs can be (root, Linux);
/// elsewhere it stays an ordinary directory, and the tests that need the mount are skipped. Dispose unmounts and removes it.
/// </summary>
public sealed class Tmpfs : IDisposable
{
    private bool _mounted;

    /// <summary>The directory (the mount point once mounted).</summary>
    public string Path { get; } = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N") + "-tmpfs");

    /// <summary>Bytes free on the tmpfs (statvfs), as <c>df</c> shows them.</summary>
    public long FreeBytes => new DriveInfo(Path).AvailableFreeSpace;

    private string FillerPath => System.IO.Path.Combine(Path, "filler.bin");

    /// <summary>Creates the directory and mounts a tmpfs of <paramref name="size"/> bytes on it (read-only when asked: nothing can be written there).</summary>
    public void Mount(long size, bool readOnly = false)
    {
        Directory.CreateDirectory(Path);
        if (TmpfsFactAttribute.Available)
        {
            TmpfsFactAttribute.Run("mount", "-t", "tmpfs", "-o", readOnly ? $"size={size},ro" : $"size={size}", "tmpfs", Path);
            _mounted = true;
        }
    }

    /// <summary>Remounts the tmpfs read-only or read-write, its files kept: a volume that turns read-only under a running server.</summary>
    public void Remount(bool readOnly)
    {
        if (_mounted)
        {
            TmpfsFactAttribute.Run("mount", "-o", readOnly ? "remount,ro" : "remount,rw", Path);
        }
    }

    /// <summary>Fills the tmpfs to the last byte with a file of its own, so the next write that needs a block fails.</summary>
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

    public void Dispose()
    {
        if (_mounted)
        {
            TmpfsFactAttribute.Run("umount", Path);
            _mounted = false;
        }

        if (Directory.Exists(Path))
        {
            Directory.Delete(Path, recursive: true);
        }
    }
}
