using System.Diagnostics;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Sample;

/// <summary>
/// samples/Freight.Sample as a user builds it: scripts/sample.sh packs the three packages into artifacts/feed and
/// restores the sample from that feed into a fresh packages folder; then the built app runs in a child process on
/// 127.0.0.1:0 with its files in a temp folder. Packed, built and started once for the class.
/// </summary>
public sealed class SampleApp : IAsyncLifetime
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "freight-sample-tests", Guid.NewGuid().ToString("N"));
    private FreightProcess? _process;

    /// <summary>The build output the sample runs from (artifacts/sample).</summary>
    public string BuildOutput { get; } = Path.Combine(RepositoryRoot(), "artifacts", "sample");

    /// <summary>The folder the sample's file-system store keeps its files in.</summary>
    public string FilesDirectory => Path.Combine(_directory, "files");

    public HttpClient Client { get; } = new();

    public async Task InitializeAsync()
    {
        Directory.CreateDirectory(_directory);
        var start = new ProcessStartInfo("bash", [Path.Combine(RepositoryRoot(), "scripts", "sample.sh"), Path.Combine(_directory, "packages")])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using (var build = Process.Start(start)!)
        {
            var output = build.StandardOutput.ReadToEndAsync();
            var error = build.StandardError.ReadToEndAsync();
            await build.WaitForExitAsync();
            Assert.True(build.ExitCode == 0, $"scripts/sample.sh exited {build.ExitCode}: {await output}{await error}");
        }

        _process = FreightProcess.StartApp(
            _directory,
            Path.Combine(BuildOutput, "Freight.Sample.dll"),
            ["--urls", "http://127.0.0.1:0", "--Freight:FileSystem:RootDirectory=" + FilesDirectory]);
        var lines = await _process.ReadUntilListeningAsync(1);
        Client.BaseAddress = new Uri(lines.Single(line => line.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]);
        // Drained so that the app's console logger never blocks on a full pipe.
        _ = _process.ReadRestOfOutputAsync();
    }

    public async Task DisposeAsync()
    {
        Client.Dispose();
        if (_process is not null)
        {
            await _process.DisposeAsync();
        }

        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }

    private static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Freight.slnx")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("The repository root (Freight.slnx) is not above the test's directory.");
    }
}
