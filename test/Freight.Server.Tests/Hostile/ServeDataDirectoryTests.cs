using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// <c>freight serve</c> as users run it (the CLI in a child process) with a data directory it cannot write the lab's
/// files into: its volume full, read-only, or the path a file. It says so in one <c>error:</c> line that names the
/// directory and what to do, with no stack trace, exits 2 as for any option refused at start, and leaves nothing behind.
/// </summary>
public sealed class ServeDataDirectoryTests : IDisposable
{
    // Room for the lab's files (1.1 MiB) on an empty volume; the tests take that room away.
    private const long VolumeSize = 2 * 1024 * 1024;

    private readonly Tmpfs _tmpfs = new();

    public void Dispose() => _tmpfs.Dispose();

    [TmpfsFact]
    public async Task Serve_DataDirectoryOnAFullVolume_Exits2SayingItIsFullAndLeavesNothing()
    {
        _tmpfs.Mount(VolumeSize);
        _tmpfs.Fill();
        var data = Path.Combine(_tmpfs.Path, "data");

        var (exitCode, stderr) = await ServeAsync(data);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stderr, data);
        Assert.Contains("is full", error, StringComparison.Ordinal);
        Assert.Equal(["filler.bin"], EntriesOf(_tmpfs.Path));
    }

    /// <summary>The small lab files fit and are written before the 128 KiB one finds the volume full: they go too.</summary>
    [TmpfsFact]
    public async Task Serve_DataDirectoryWithRoomForSomeLabFiles_Exits2AndRemovesTheFilesItWrote()
    {
        _tmpfs.Mount(VolumeSize);
        _tmpfs.FillAllBut(64 * 1024);
        var data = Path.Combine(_tmpfs.Path, "data");

        var (exitCode, stderr) = await ServeAsync(data);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stderr, data);
        Assert.Contains("is full", error, StringComparison.Ordinal);
        Assert.Equal(["filler.bin"], EntriesOf(_tmpfs.Path));
    }

    [TmpfsFact]
    public async Task Serve_DataDirectoryOnAReadOnlyVolume_Exits2SayingItCannotBeWritten()
    {
        _tmpfs.Mount(VolumeSize, readOnly: true);
        var data = Path.Combine(_tmpfs.Path, "data");

        var (exitCode, stderr) = await ServeAsync(data);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stderr, data);
        Assert.Contains("cannot be written", error, StringComparison.Ordinal);
        Assert.Empty(EntriesOf(_tmpfs.Path));
    }

    [Fact]
    public async Task Serve_DataDirectoryIsAFile_Exits2SayingSoAndLeavesTheFileAlone()
    {
        Directory.CreateDirectory(_tmpfs.Path);
        var data = Path.Combine(_tmpfs.Path, "data");
        await File.WriteAllTextAsync(data, "not a directory");

        var (exitCode, stderr) = await ServeAsync(data);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stderr, data);
        Assert.Contains("is a file", error, StringComparison.Ordinal);
        Assert.Equal(["data"], EntriesOf(_tmpfs.Path));
        Assert.Equal("not a directory", await File.ReadAllTextAsync(data));
    }

    [Fact]
    public async Task Serve_DataDirectoryBelowAFile_Exits2NamingTheFileInTheWay()
    {
        Directory.CreateDirectory(_tmpfs.Path);
        var file = Path.Combine(_tmpfs.Path, "data");
        await File.WriteAllTextAsync(file, "not a directory");
        var data = Path.Combine(file, "below");

        var (exitCode, stderr) = await ServeAsync(data);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stderr, data);
        Assert.Contains($"{data} cannot be created: {file} is a file, not a directory", error, StringComparison.Ordinal);
        Assert.Equal(["data"], EntriesOf(_tmpfs.Path));
    }

    private static async Task<(int ExitCode, string Stderr)> ServeAsync(string dataDirectory)
    {
        await using var freight = FreightProcess.StartServe(Path.GetTempPath(), ["--urls", "http://127.0.0.1:0", "--data-dir", dataDirectory]);
        return await freight.WaitForExitAsync();
    }

    /// <summary>stderr is one line, <c>error: Freight:DataDirectory: …</c> naming the directory and the option to choose another; no stack trace.</summary>
    private static string AssertOneErrorLine(string stderr, string dataDirectory)
    {
        Assert.DoesNotContain("   at ", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", stderr, StringComparison.Ordinal);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
        Assert.StartsWith("error: Freight:DataDirectory: ", line, StringComparison.Ordinal);
        Assert.Contains(dataDirectory, line, StringComparison.Ordinal);
        Assert.Contains("--data-dir", line, StringComparison.Ordinal);
        return line;
    }

    private static List<string> EntriesOf(string directory) =>
        [.. Directory.EnumerateFileSystemEntries(directory, "*", SearchOption.AllDirectories).Select(entry => Path.GetRelativePath(directory, entry)).Order(StringComparer.Ordinal)];
}
