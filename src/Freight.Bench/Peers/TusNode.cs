using System.Diagnostics;

namespace Freight.Bench.Peers;

/// <summary>
/// The tus peer: @tus/server 2.x with its file store (<c>peers/tus-node/server.mjs</c>), one Node process on a
/// free 127.0.0.1 port, started in the bench's work directory. Its packages are the committed lock file's,
/// installed by <c>npm ci</c> into <c>peers/tus-node/node_modules</c> the first time (and again when the lock
/// file changes). The process exits when the bench closes its standard input, which also happens when the
/// bench dies, however it dies (the same guard as <c>freight serve</c>'s <c>StopWhenInputCloses</c>).
/// </summary>
public static class TusNode
{
    /// <summary>@tus/server 2.x and @tus/file-store 2.x declare <c>engines: node &gt;= 20.19.0</c>.</summary>
    public static readonly Version MinimumNodeVersion = new(20, 19, 0);

    /// <summary>The peer's package directory, relative to the repository root (the directory holding Freight.slnx).</summary>
    public static readonly string RelativePackageDirectory = Path.Combine("peers", "tus-node");

    /// <summary>Node starts the server in ~0.2 s; 30 s survives a loaded 2-core CI machine and a cold disk cache.</summary>
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(30);

    /// <summary><c>npm ci</c> of 17 small packages takes a few seconds; 5 minutes survives a slow registry mirror.</summary>
    private static readonly TimeSpan InstallTimeout = TimeSpan.FromMinutes(5);

    private const string ListeningPrefix = "listening: ";

    /// <summary>node on PATH, else the usual places; null when not installed.</summary>
    public static string? FindNode() => Executables.Find("node", "/usr/bin/node", "/usr/local/bin/node");

    /// <summary>npm on PATH, else the usual places; null when not installed.</summary>
    public static string? FindNpm() => Executables.Find("npm", "/usr/bin/npm", "/usr/local/bin/npm");

    /// <summary>
    /// <c>peers/tus-node</c> of the repository the bench runs from: the first directory at or above
    /// <paramref name="start"/> (default: the bench's own directory) holding Freight.slnx. Null when the bench
    /// runs outside a clone.
    /// </summary>
    public static string? FindPackageDirectory(string? start = null)
    {
        for (var directory = new DirectoryInfo(start ?? AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Freight.slnx")))
            {
                var candidate = Path.Combine(directory.FullName, RelativePackageDirectory);
                return File.Exists(Path.Combine(candidate, "server.mjs")) ? candidate : null;
            }
        }

        return null;
    }

    /// <summary>
    /// Node and the package directory (<paramref name="packageDirectory"/>, else <see cref="FindPackageDirectory"/>),
    /// or why the peer cannot run here: Node missing or older than <see cref="MinimumNodeVersion"/>, or no
    /// package directory found. An explicit directory without server.mjs is a mistake, not a missing peer.
    /// </summary>
    /// <exception cref="DirectoryNotFoundException"><paramref name="packageDirectory"/> holds no server.mjs.</exception>
    public static async Task<(TusNodeInstallation? Installation, string? Unavailable)> LocateAsync(string? packageDirectory, CancellationToken cancellationToken)
    {
        string? directory;
        if (packageDirectory is not null)
        {
            directory = Path.GetFullPath(packageDirectory);
            if (!File.Exists(Path.Combine(directory, "server.mjs")))
            {
                throw new DirectoryNotFoundException($"The tus peer's directory {directory} has no server.mjs.");
            }
        }
        else
        {
            directory = FindPackageDirectory();
        }

        var node = FindNode();
        if (node is null)
        {
            return (null, "node is not installed");
        }

        var version = await GetVersionAsync(node, cancellationToken);
        if (version is null || version < MinimumNodeVersion)
        {
            return (null, $"node {version?.ToString() ?? "of unknown version"} is older than the {MinimumNodeVersion} @tus/server 2.x needs");
        }

        return directory is null
            ? (null, $"{RelativePackageDirectory} was not found above {AppContext.BaseDirectory} (pass --tus-node-dir)")
            : (new TusNodeInstallation(node, version, directory), null);
    }

    /// <summary>"v20.20.2" from <c>node --version</c> as a <see cref="Version"/>; null when it says something else.</summary>
    public static async Task<Version?> GetVersionAsync(string node, CancellationToken cancellationToken)
    {
        var (exitCode, output) = await RunAsync(node, ["--version"], null, TimeSpan.FromSeconds(30), cancellationToken);
        var text = output.Trim().TrimStart('v');
        return exitCode == 0 && Version.TryParse(text, out var version) ? version : null;
    }

    /// <summary>
    /// Runs <c>npm ci --no-audit --no-fund</c> in the package directory unless node_modules already holds what
    /// the lock file names (npm's node_modules/.package-lock.json at least as new as package-lock.json). One
    /// install at a time per directory, across processes. Returns whether it installed.
    /// </summary>
    /// <exception cref="InvalidOperationException">npm is missing, or <c>npm ci</c> failed (npm's error lines say why).</exception>
    public static async Task<bool> EnsurePackagesAsync(TusNodeInstallation installation, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(installation);
        if (IsInstalled(installation))
        {
            return false;
        }

        await using var gate = await InstallLock.AcquireAsync(installation.PackageDirectory, InstallTimeout, cancellationToken);
        if (IsInstalled(installation))
        {
            return false;
        }

        var npm = FindNpm() ?? throw new InvalidOperationException($"npm is not installed: the tus peer's packages cannot be installed into {installation.PackageDirectory}.");
        var (exitCode, output) = await RunAsync(npm, ["ci", "--no-audit", "--no-fund"], installation.PackageDirectory, InstallTimeout, cancellationToken);
        if (exitCode != 0 || !IsInstalled(installation))
        {
            throw new InvalidOperationException($"npm ci in {installation.PackageDirectory} failed (exit code {exitCode}): {NpmErrors(output)}");
        }

        return true;
    }

    internal static bool IsInstalled(TusNodeInstallation installation) =>
        File.Exists(installation.InstalledLockFilePath)
        && File.Exists(installation.LockFilePath)
        && File.GetLastWriteTimeUtc(installation.InstalledLockFilePath) >= File.GetLastWriteTimeUtc(installation.LockFilePath);

    /// <summary>
    /// Installs the packages when needed (<see cref="EnsurePackagesAsync"/>), then starts server.mjs on port 0
    /// in <see cref="TusNodeOptions.WorkDirectory"/> and returns once it has printed its <c>listening:</c> line.
    /// </summary>
    /// <exception cref="InvalidOperationException">The install failed, or the server exited or stayed silent (its stderr says why).</exception>
    public static async Task<TusNodeServer> StartAsync(TusNodeInstallation installation, TusNodeOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(installation);
        ArgumentNullException.ThrowIfNull(options);
        await EnsurePackagesAsync(installation, cancellationToken);
        var store = Path.GetFullPath(options.StoreDirectory);
        var work = Path.GetFullPath(options.WorkDirectory);
        Directory.CreateDirectory(store);
        Directory.CreateDirectory(work);

        var start = new ProcessStartInfo(installation.NodePath)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = work,
        };
        foreach (var argument in (string[])[installation.ScriptPath, "0", store])
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {installation.NodePath}.");
        var stderr = process.StandardError.ReadToEndAsync(CancellationToken.None);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(StartTimeout);
        string? failure = null;
        Uri? address = null;
        try
        {
            while (address is null && failure is null)
            {
                var line = await process.StandardOutput.ReadLineAsync(timeout.Token);
                if (line is null)
                {
                    await process.WaitForExitAsync(CancellationToken.None);
                    failure = $"it exited with code {process.ExitCode} before listening";
                }
                else if (line.StartsWith(ListeningPrefix, StringComparison.Ordinal))
                {
                    address = new Uri(line[ListeningPrefix.Length..].Trim());
                }
            }
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            failure = $"it printed no listening line within {StartTimeout.TotalSeconds:0} s";
        }
        catch
        {
            await KillAsync(process);
            throw;
        }

        if (failure is not null)
        {
            await KillAsync(process);
            throw new InvalidOperationException($"The tus peer ({installation.ScriptPath}) did not start: {failure}. stderr: {Tail(await stderr)}");
        }

        // Keep draining stdout (stderr's reader runs to the end) so the server never blocks on a full pipe.
        _ = process.StandardOutput.BaseStream.CopyToAsync(Stream.Null, CancellationToken.None);
        return new TusNodeServer(process, address!, installation.NodeVersion, store);
    }

    private static async Task KillAsync(Process process)
    {
        if (!process.HasExited)
        {
            process.Kill(entireProcessTree: true);
        }

        await process.WaitForExitAsync(CancellationToken.None);
        process.Dispose();
    }

    /// <summary>Runs a command to its end; its exit code and its stdout and stderr together.</summary>
    private static async Task<(int ExitCode, string Output)> RunAsync(string executable, IReadOnlyList<string> arguments, string? workingDirectory, TimeSpan limit, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(executable)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? "",
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {executable}.");
        process.StandardInput.Close();
        var stdout = process.StandardOutput.ReadToEndAsync(CancellationToken.None);
        var stderr = process.StandardError.ReadToEndAsync(CancellationToken.None);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(limit);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync(CancellationToken.None);
            cancellationToken.ThrowIfCancellationRequested();
            return (-1, $"{Path.GetFileName(executable)} {string.Join(' ', arguments)} did not finish within {limit.TotalSeconds:0} s. {await stdout}{await stderr}");
        }

        return (process.ExitCode, $"{await stdout}{await stderr}");
    }

    /// <summary>
    /// What npm said went wrong: its first few <c>npm error</c> lines (the cause; a usage text may follow) and
    /// the last (where its full log is); the output's tail when it printed none.
    /// </summary>
    internal static string NpmErrors(string output)
    {
        const string Prefix = "npm error";
        var errors = output.Split('\n')
            .Where(line => line.StartsWith(Prefix, StringComparison.Ordinal))
            .Select(line => line[Prefix.Length..].Trim())
            .Where(line => line.Length > 0)
            .ToList();
        return errors.Count == 0 ? Tail(output) : string.Join(" ", errors.Count <= 4 ? errors : [.. errors.Take(3), "…", errors[^1]]);
    }

    /// <summary>The last 4 KiB of a program's output, enough to say why it failed.</summary>
    private static string Tail(string output)
    {
        const int TailChars = 4096;
        output = output.Trim();
        return output.Length <= TailChars ? output : "…" + output[^TailChars..];
    }

    /// <summary>
    /// An exclusive lock per package directory, across processes (its <c>.npm-ci.lock</c> held with
    /// FileShare.None, which .NET takes as an advisory flock on Unix): two benches or test runs installing at
    /// once would otherwise delete each other's node_modules.
    /// </summary>
    private sealed class InstallLock(FileStream file) : IAsyncDisposable
    {
        public static async Task<InstallLock> AcquireAsync(string packageDirectory, TimeSpan limit, CancellationToken cancellationToken)
        {
            var path = Path.Combine(packageDirectory, ".npm-ci.lock");
            var deadline = Stopwatch.GetTimestamp() + (long)(limit.TotalSeconds * Stopwatch.Frequency);
            while (true)
            {
                try
                {
                    return new InstallLock(new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None));
                }
                catch (IOException) when (Stopwatch.GetTimestamp() < deadline)
                {
                    // Another process is installing: wait for it.
                    await Task.Delay(TimeSpan.FromMilliseconds(250), cancellationToken);
                }
            }
        }

        public ValueTask DisposeAsync() => file.DisposeAsync();
    }
}
