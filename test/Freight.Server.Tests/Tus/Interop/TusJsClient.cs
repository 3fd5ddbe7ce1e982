using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;

namespace Freight.Server.Tests.Tus.Interop;

/// <summary>
/// The official tus-js-client under Node: <c>test/interop/tus-js-client/upload.mjs</c>, with the npm packages its
/// committed package-lock.json pins, installed by the tests themselves (<c>npm ci</c>) so a fresh clone needs only
/// Node.js and npm on PATH.
/// </summary>
internal static class TusJsClient
{
    // Guards against a hang; no test asserts on time. The script bounds itself (--timeout-ms) well inside this.
    private static readonly TimeSpan s_uploadPatience = TimeSpan.FromSeconds(120);

    // What upload.mjs allows itself (--timeout-ms) before it reports where it stood and exits non-zero: a 64 MiB
    // upload on loopback takes about a second, so a broken server fails the run long before this.
    private static readonly TimeSpan s_scriptTimeout = TimeSpan.FromSeconds(60);

    // A first install downloads ~20 small packages; a busy registry mirror can be slow.
    private static readonly TimeSpan s_installPatience = TimeSpan.FromMinutes(5);

    // Another test process may hold the install lock for as long as its own install takes.
    private static readonly TimeSpan s_lockPatience = s_installPatience + TimeSpan.FromMinutes(1);

    private const string Stamp = ".freight-npm-ci";

    /// <summary>The npm project folder: <c>{repository}/test/interop/tus-js-client</c>.</summary>
    public static string ProjectDirectory { get; } = Path.Combine(RepositoryRoot(), "test", "interop", "tus-js-client");

    /// <summary>
    /// Runs <c>npm ci</c> unless node_modules already holds what package.json and package-lock.json pin (a stamp with
    /// their SHA-256, written after a successful install). A file lock serialises test processes that start at once.
    /// </summary>
    public static async Task EnsureInstalledAsync()
    {
        var node = await RunAsync("node", ["--version"], ProjectDirectory, TimeSpan.FromSeconds(30));
        Assert.True(node.ExitCode == 0, "`node --version` failed: " + node.Describe());
        var major = int.Parse(node.Stdout.Trim().TrimStart('v').Split('.')[0], CultureInfo.InvariantCulture);
        Assert.True(major >= 18, $"tus-js-client interop tests need Node.js 18 or later; PATH has {node.Stdout.Trim()}");

        var expected = InstallStamp();
        var stampPath = Path.Combine(ProjectDirectory, "node_modules", Stamp);
        if (IsInstalled(stampPath, expected))
        {
            return;
        }

        await using var installLock = await AcquireInstallLockAsync();
        if (IsInstalled(stampPath, expected))
        {
            // Another process installed while this one waited for the lock.
            return;
        }

        var npm = await RunAsync("npm", ["ci", "--no-audit", "--no-fund"], ProjectDirectory, s_installPatience);
        Assert.True(npm.ExitCode == 0, $"`npm ci` in {ProjectDirectory} failed: " + npm.Describe());
        await File.WriteAllTextAsync(stampPath, expected);
    }

    /// <summary>
    /// Uploads <paramref name="sourceFile"/> to <paramref name="endpoint"/> with <c>upload.mjs --mode
    /// <paramref name="mode"/></c>; returns what the script printed (it has run to its end, successfully or not).
    /// </summary>
    public static async Task<TusRun> UploadAsync(Uri endpoint, string sourceFile, int chunkSize, string filename, string mode)
    {
        var output = await RunAsync(
            "node",
            [
                Path.Combine(ProjectDirectory, "upload.mjs"),
                "--endpoint", endpoint.ToString(),
                "--file", sourceFile,
                "--chunk-size", chunkSize.ToString(CultureInfo.InvariantCulture),
                "--filename", filename,
                "--mode", mode,
                "--timeout-ms", ((long)s_scriptTimeout.TotalMilliseconds).ToString(CultureInfo.InvariantCulture),
            ],
            ProjectDirectory,
            s_uploadPatience);
        return new TusRun(output);
    }

    private static bool IsInstalled(string stampPath, string expected) =>
        File.Exists(stampPath)
        && File.ReadAllText(stampPath) == expected
        && File.Exists(Path.Combine(ProjectDirectory, "node_modules", "tus-js-client", "package.json"));

    private static string InstallStamp()
    {
        var manifests = File.ReadAllBytes(Path.Combine(ProjectDirectory, "package.json"))
            .Concat(File.ReadAllBytes(Path.Combine(ProjectDirectory, "package-lock.json")))
            .ToArray();
        return Convert.ToHexStringLower(SHA256.HashData(manifests));
    }

    /// <summary>An exclusive lock (flock through FileShare.None) on a file named after this checkout, outside the work tree.</summary>
    private static async Task<FileStream> AcquireInstallLockAsync()
    {
        var name = "freight-npm-" + Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(ProjectDirectory)))[..16] + ".lock";
        var path = Path.Combine(Path.GetTempPath(), name);
        var deadline = DateTime.UtcNow + s_lockPatience;
        while (true)
        {
            try
            {
                return new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
            }
            catch (IOException) when (DateTime.UtcNow < deadline)
            {
                await Task.Delay(500);
            }
        }
    }

    /// <summary>Runs <paramref name="fileName"/> to its end, killing it (and its children) past <paramref name="patience"/>.</summary>
    private static async Task<ProcessOutput> RunAsync(string fileName, IEnumerable<string> arguments, string workingDirectory, TimeSpan patience)
    {
        var start = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var commandLine = fileName + " " + string.Join(' ', start.ArgumentList);
        Process process;
        try
        {
            process = Process.Start(start)!;
        }
        catch (Win32Exception e)
        {
            throw new InvalidOperationException(
                $"tus-js-client interop tests need Node.js (18 or later) and npm on PATH; starting `{fileName}` failed: {e.Message}", e);
        }

        using (process)
        {
            process.StandardInput.Close();
            var stdout = process.StandardOutput.ReadToEndAsync();
            var stderr = process.StandardError.ReadToEndAsync();
            using var limit = new CancellationTokenSource(patience);
            var timedOut = false;
            try
            {
                await process.WaitForExitAsync(limit.Token);
            }
            catch (OperationCanceledException)
            {
                timedOut = true;
                process.Kill(entireProcessTree: true);
                await process.WaitForExitAsync();
            }

            return new ProcessOutput(commandLine, timedOut ? null : process.ExitCode, await stdout, await stderr);
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

        throw new InvalidOperationException($"No Freight.slnx above {AppContext.BaseDirectory}: the interop tests run from the repository's build output.");
    }
}
