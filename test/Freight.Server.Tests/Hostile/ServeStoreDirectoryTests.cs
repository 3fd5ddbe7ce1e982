using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// <c>freight serve</c> (the CLI in a child process) given a files or tus directory of its own that the file-system
/// store cannot make: the path a file, through a file, or on a read-only volume. As for the data directory, one
/// <c>error:</c> line names the key, the directory and the option that chooses another, with no stack trace, and the
/// exit code is 2. (A full volume is not refused at start: making a folder needs no room there, and each upload that
/// finds no room answers 507.)
/// </summary>
public sealed class ServeStoreDirectoryTests : IDisposable
{
    private readonly Tmpfs _tmpfs = new();

    public ServeStoreDirectoryTests() => Directory.CreateDirectory(_tmpfs.Path);

    public void Dispose() => _tmpfs.Dispose();

    private string DataDirectory => Path.Combine(Path.GetTempPath(), "freight-server-tests", Path.GetFileName(_tmpfs.Path) + "-data");

    [Theory]
    [InlineData("Freight:Files:Directory")]
    [InlineData("Freight:Tus:Directory")]
    public async Task Serve_StoreDirectoryIsAFile_Exits2SayingSoAndLeavesTheFileAlone(string key)
    {
        var directory = Path.Combine(_tmpfs.Path, "store");
        await File.WriteAllTextAsync(directory, "not a directory");

        var (exitCode, stdout, stderr) = await ServeAsync(key, directory);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stdout, stderr, key, directory);
        Assert.Contains($"{directory} is a file, not a directory", error, StringComparison.Ordinal);
        Assert.Equal("not a directory", await File.ReadAllTextAsync(directory));
    }

    [Theory]
    [InlineData("Freight:Files:Directory")]
    [InlineData("Freight:Tus:Directory")]
    public async Task Serve_StoreDirectoryBelowAFile_Exits2NamingTheFileInTheWay(string key)
    {
        var file = Path.Combine(_tmpfs.Path, "store");
        await File.WriteAllTextAsync(file, "not a directory");
        var directory = Path.Combine(file, "below");

        var (exitCode, stdout, stderr) = await ServeAsync(key, directory);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stdout, stderr, key, directory);
        Assert.Contains($"{file} is a file, not a directory", error, StringComparison.Ordinal);
    }

    [TmpfsFact]
    public async Task Serve_FilesDirectoryOnAReadOnlyVolume_Exits2SayingItCannotBeWritten()
    {
        _tmpfs.Mount(64 * 1024, readOnly: true);
        var directory = Path.Combine(_tmpfs.Path, "files");

        var (exitCode, stdout, stderr) = await ServeAsync("Freight:Files:Directory", directory);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stdout, stderr, "Freight:Files:Directory", directory);
        Assert.Contains("cannot be written", error, StringComparison.Ordinal);
    }

    [TmpfsFact]
    public async Task Serve_TusDirectoryOnAReadOnlyVolume_Exits2SayingItCannotBeWritten()
    {
        _tmpfs.Mount(64 * 1024, readOnly: true);
        var directory = Path.Combine(_tmpfs.Path, "tus");

        var (exitCode, stdout, stderr) = await ServeAsync("Freight:Tus:Directory", directory);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stdout, stderr, "Freight:Tus:Directory", directory);
        Assert.Contains("cannot be written", error, StringComparison.Ordinal);
    }

    private async Task<(int ExitCode, string Stdout, string Stderr)> ServeAsync(string key, string directory)
    {
        try
        {
            await using var freight = FreightProcess.StartServe(Path.GetTempPath(), ["--urls", "http://127.0.0.1:0", "--data-dir", DataDirectory, "--" + key, directory]);
            var stdout = await freight.ReadRestOfOutputAsync();
            var (exitCode, stderr) = await freight.WaitForExitAsync();
            return (exitCode, stdout, stderr);
        }
        finally
        {
            if (Directory.Exists(DataDirectory))
            {
                Directory.Delete(DataDirectory, recursive: true);
            }
        }
    }

    /// <summary>stderr is one line, <c>error: KEY: …</c> naming the directory and <c>--KEY</c> to choose another; no stack trace anywhere, no log of it on stdout.</summary>
    private static string AssertOneErrorLine(string stdout, string stderr, string key, string directory)
    {
        Assert.DoesNotContain("   at ", stdout + stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", stderr, StringComparison.Ordinal);
        Assert.Equal("", stdout);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
        Assert.StartsWith($"error: {key}: ", line, StringComparison.Ordinal);
        Assert.Contains(directory, line, StringComparison.Ordinal);
        Assert.Contains($"--{key} DIR", line, StringComparison.Ordinal);
        return line;
    }
}
