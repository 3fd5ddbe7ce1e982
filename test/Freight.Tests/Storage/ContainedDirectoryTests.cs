using System.Text;
using Freight.Storage;
using Microsoft.Win32.SafeHandles;

namespace Freight.Tests.Storage;

/// <summary>
/// The containment every file-system store path goes through, in each of its forms: openat2, the openat walk
/// used where openat2 is missing or forbidden, and the lstat walk of other OSes (run here too). Links point
/// into an "outside" folder beside the root holding a secret.
/// </summary>
public sealed class ContainedDirectoryTests : IDisposable
{
    private static readonly byte[] s_inside = Encoding.ASCII.GetBytes("inside");
    private static readonly byte[] s_secret = Encoding.ASCII.GetBytes("SECRET");

    private readonly TempDirectory _dir = new();
    private readonly string _root;
    private readonly string _outside;

    public ContainedDirectoryTests()
    {
        _root = Directory.CreateDirectory(_dir.Combine("root")).FullName;
        _outside = Directory.CreateDirectory(_dir.Combine("outside")).FullName;
        File.WriteAllBytes(Path.Combine(_outside, "secret"), s_secret);
    }

    public void Dispose() => _dir.Dispose();

    private string InRoot(string relative) => Path.Combine(_root, relative);

    private string Outside(string relative) => Path.Combine(_outside, relative);

    // Theory data names the form: a test's parameters must be public types.
    private ContainedDirectory Open(string resolution) => new(_root, Enum.Parse<ContainedResolution>(resolution));

    private static byte[] ReadAll(SafeFileHandle handle)
    {
        var bytes = new byte[RandomAccess.GetLength(handle)];
        Assert.Equal(bytes.Length, RandomAccess.Read(handle, bytes, 0));
        return bytes;
    }

    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2))]
    [InlineData(nameof(ContainedResolution.OpenatWalk))]
    [InlineData(nameof(ContainedResolution.LstatWalk))]
    public void TryOpenFile_PlainFileInFolders_Opens(string resolution)
    {
        Directory.CreateDirectory(InRoot("a/b"));
        File.WriteAllBytes(InRoot("a/b/f"), s_inside);

        using var handle = Open(resolution).TryOpenFile("a/b/f", FileAccess.Read);

        Assert.NotNull(handle);
        Assert.Equal(s_inside, ReadAll(handle));
    }

    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2))]
    [InlineData(nameof(ContainedResolution.OpenatWalk))]
    [InlineData(nameof(ContainedResolution.LstatWalk))]
    public void TryOpenFile_LinkAnywhere_Null(string resolution)
    {
        File.CreateSymbolicLink(InRoot("leak"), Outside("secret"));
        File.CreateSymbolicLink(InRoot("relative-leak"), "../outside/secret");
        File.CreateSymbolicLink(InRoot("dangling"), Outside("missing"));
        Directory.CreateSymbolicLink(InRoot("evil"), _outside);
        File.WriteAllBytes(InRoot("real"), s_inside);
        File.CreateSymbolicLink(InRoot("alias"), InRoot("real"));
        Directory.CreateSymbolicLink(InRoot("loop"), ".");
        Directory.CreateDirectory(InRoot("folder"));
        var contained = Open(resolution);

        foreach (var name in new[] { "leak", "relative-leak", "dangling", "evil/secret", "alias", "loop/real", "loop/loop/real", "evil", "folder", "missing", "real/child" })
        {
            Assert.Null(contained.TryOpenFile(name, FileAccess.Read));
            Assert.Null(contained.TryOpenFile(name, FileAccess.ReadWrite));
        }

        Assert.Equal(s_secret, File.ReadAllBytes(Outside("secret")));
    }

    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2))]
    [InlineData(nameof(ContainedResolution.OpenatWalk))]
    [InlineData(nameof(ContainedResolution.LstatWalk))]
    public void CreateNew_ThroughLinkedFolder_RefusedAndNothingOutside(string resolution)
    {
        Directory.CreateSymbolicLink(InRoot("evil"), _outside);
        var contained = Open(resolution);

        Assert.Throws<KeyConflictException>(() => contained.CreateNew("evil/planted"));
        Assert.Throws<KeyConflictException>(() => contained.CreateFolder("evil/made"));
        Assert.Equal(ContainedEntry.Foreign, contained.GetEntry("evil/secret"));
        Assert.Equal(["secret"], Directory.GetFileSystemEntries(_outside).Select(Path.GetFileName));
    }

    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2))]
    [InlineData(nameof(ContainedResolution.OpenatWalk))]
    [InlineData(nameof(ContainedResolution.LstatWalk))]
    public void CreateNew_OnDanglingLink_ThrowsAndTargetNotCreated(string resolution)
    {
        File.CreateSymbolicLink(InRoot("dangling"), Outside("created"));

        // O_CREAT | O_EXCL meets the link (EEXIST); the lstat walk refuses it before.
        Assert.ThrowsAny<Exception>(() => Open(resolution).CreateNew("dangling"));
        Assert.False(File.Exists(Outside("created")));
    }

    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2))]
    [InlineData(nameof(ContainedResolution.OpenatWalk))]
    [InlineData(nameof(ContainedResolution.LstatWalk))]
    public void Rename_OntoLink_ReplacesTheLinkNotItsTarget(string resolution)
    {
        File.CreateSymbolicLink(InRoot("leak"), Outside("secret"));
        var contained = Open(resolution);
        using (var handle = contained.CreateNew("temp"))
        {
            RandomAccess.Write(handle, s_inside, 0);
        }

        contained.Rename("temp", "leak");

        Assert.Equal(ContainedEntry.File, contained.GetEntry("leak"));
        Assert.Equal(s_inside, File.ReadAllBytes(InRoot("leak")));
        Assert.Equal(s_secret, File.ReadAllBytes(Outside("secret")));
    }

    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2))]
    [InlineData(nameof(ContainedResolution.OpenatWalk))]
    [InlineData(nameof(ContainedResolution.LstatWalk))]
    public void Delete_ThroughLinkedFolder_FalseAndTargetKept(string resolution)
    {
        Directory.CreateSymbolicLink(InRoot("evil"), _outside);
        var contained = Open(resolution);

        Assert.False(contained.Delete("evil/secret"));
        Assert.False(contained.DeleteEmptyFolder("evil"));
        Assert.True(File.Exists(Outside("secret")));
        Assert.True(Directory.Exists(InRoot("evil")));
    }

    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2))]
    [InlineData(nameof(ContainedResolution.OpenatWalk))]
    [InlineData(nameof(ContainedResolution.LstatWalk))]
    public void GetEntry_EachKind_SeenWithoutFollowing(string resolution)
    {
        Directory.CreateDirectory(InRoot("folder"));
        File.WriteAllBytes(InRoot("folder/file"), s_inside);
        Directory.CreateSymbolicLink(InRoot("evil"), _outside);
        var contained = Open(resolution);

        Assert.Equal(ContainedEntry.Folder, contained.GetEntry("folder"));
        Assert.Equal(ContainedEntry.File, contained.GetEntry("folder/file"));
        Assert.Equal(ContainedEntry.Missing, contained.GetEntry("folder/none"));
        Assert.Equal(ContainedEntry.Missing, contained.GetEntry("none/none"));
        Assert.Equal(ContainedEntry.Foreign, contained.GetEntry("evil"));
        Assert.Equal(ContainedEntry.Foreign, contained.GetEntry("evil/secret"));
    }

    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2), FileAccess.Read)]
    [InlineData(nameof(ContainedResolution.Openat2), FileAccess.ReadWrite)]
    [InlineData(nameof(ContainedResolution.OpenatWalk), FileAccess.Read)]
    [InlineData(nameof(ContainedResolution.OpenatWalk), FileAccess.ReadWrite)]
    public async Task TryOpenFile_FifoPlantedBelowTheRoot_NullWithoutWaitingForAWriter(string resolution, FileAccess access)
    {
        Directory.CreateDirectory(InRoot("a"));
        using (var mkfifo = System.Diagnostics.Process.Start("mkfifo", InRoot("a/pipe")))
        {
            await mkfifo.WaitForExitAsync();
            Assert.Equal(0, mkfifo.ExitCode);
        }

        var contained = Open(resolution);

        // Without O_NONBLOCK the open waits for a writer that never comes; the bound only keeps a regression from hanging the run.
        var open = Task.Run(() => contained.TryOpenFile("a/pipe", access));
        Assert.Same(open, await Task.WhenAny(open, Task.Delay(TimeSpan.FromSeconds(30))));
        Assert.Null(await open);
    }

    [Fact]
    public void Resolution_Default_IsTheKernelsOnLinux()
    {
        var resolution = new ContainedDirectory(_root).Resolution;

        // openat2, or the openat walk where a seccomp filter refuses it: never the racy lstat walk on Linux.
        Assert.Equal(OperatingSystem.IsLinux(), resolution != ContainedResolution.LstatWalk);
    }

    [Fact]
    public void EnumerateFiles_LoopAndLinkedFolder_SkippedNotEntered()
    {
        Directory.CreateDirectory(InRoot("a"));
        File.WriteAllBytes(InRoot("a/f"), s_inside);
        Directory.CreateSymbolicLink(InRoot("a/loop"), ".");
        Directory.CreateSymbolicLink(InRoot("evil"), _outside);
        File.CreateSymbolicLink(InRoot("leak"), Outside("secret"));

        Assert.Equal(["a/f"], Open(nameof(ContainedResolution.Openat2)).EnumerateFiles(recursive: true).Order(StringComparer.Ordinal));
    }

    /// <summary>
    /// A folder swapped for a link to the outside and back, as fast as possible, while reads of a file in it
    /// run: every read finds the inside bytes or nothing — a path open would read the secret.
    /// </summary>
    [Theory]
    [InlineData(nameof(ContainedResolution.Openat2))]
    [InlineData(nameof(ContainedResolution.OpenatWalk))]
    public async Task TryOpenFile_FolderSwappedForLinkWhileReading_NeverOutsideBytes(string resolution)
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // Elsewhere the lstat walk narrows the window but cannot close it (documented).
        }

        Directory.CreateDirectory(InRoot("a"));
        File.WriteAllBytes(InRoot("a/secret"), s_inside);
        var contained = Open(resolution);
        using var stop = new CancellationTokenSource();
        var swaps = 0;
        var swapper = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                Directory.Move(InRoot("a"), InRoot("parked"));
                Directory.CreateSymbolicLink(InRoot("a"), _outside);
                File.Delete(InRoot("a"));
                Directory.Move(InRoot("parked"), InRoot("a"));
                Interlocked.Increment(ref swaps);
            }
        });

        int inside = 0, missing = 0;
        try
        {
            // Bounded by count, not time: at least 20,000 reads and 100 swaps, and on until reads have met both the
            // folder and the swap (a loaded machine may starve the swapper for a while), 2,000,000 reads at most.
            for (var i = 0; (i < 20_000 || Volatile.Read(ref swaps) < 100 || inside == 0 || missing == 0) && i < 2_000_000 && !swapper.IsCompleted; i++)
            {
                using var handle = contained.TryOpenFile("a/secret", FileAccess.Read);
                if (handle is null)
                {
                    missing++;
                    continue;
                }

                Assert.Equal(s_inside, ReadAll(handle));
                inside++;
            }
        }
        finally
        {
            await stop.CancelAsync();
            await swapper;
        }

        Assert.True(inside > 0, "no read found the folder in place");
        Assert.True(missing > 0, "no read met the swap");
    }
}
