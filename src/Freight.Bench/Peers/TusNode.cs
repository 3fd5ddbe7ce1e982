using System.Diagnostics;

namespace Freight.Bench.Peers;

/// <summary>
/// The tus peer: @tus/server 2.x with its file store (<c>peers/tus-node/server.mjs</c>), one Node process on a
/// free 127.0.0.1 port, started in the bench's work directory. Its packages are the committed lock file's,
/// installed by <c>npm ci</c> into <c>peers/tus-node/node_modules</c> the first time (and again when package.json
/// or the lock file changes: <see cref="NodePackages"/>). The process exits when the bench closes its standard
/// input, which also happens when the bench dies, however it dies (the same guard as <c>freight serve</c>'s
/// <c>StopWhenInputCloses</c>).
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

    /// <summary>
    /// <c>peers/tus-node</c> of the repository the bench runs from: the first directory at or above
    /// <paramref name="start"/> (default: the bench's own directory) holding Freight.slnx. Null when the bench
    /// runs outside a clone.
    /// </summary>
    public static string? FindPackageDirectory(string? start = null)
    {
        if (NodePackages.FindRepositoryRoot(start) is not { } root)
        {
            return null;
        }

        var candidate = Path.Combine(root, RelativePackageDirectory);
        return File.Exists(Path.Combine(candidate, "server.mjs")) ? candidate : null;
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

        var node = NodePackages.FindNode();
        if (node is null)
        {
            return (null, "node is not installed");
        }

        var version = await NodePackages.GetNodeVersionAsync(node, cancellationToken);
        if (version is null || version < MinimumNodeVersion)
        {
            return (null, $"node {version?.ToString() ?? "of unknown version"} is older than the {MinimumNodeVersion} @tus/server 2.x needs");
        }

        return directory is null
            ? (null, $"{RelativePackageDirectory} was not found above {AppContext.BaseDirectory} (pass --tus-node-dir)")
            : (new TusNodeInstallation(node, version, directory), null);
    }

    /// <summary>
    /// Runs <c>npm ci</c> in the package directory unless node_modules already holds what package.json and the lock
    /// file pin (<see cref="NodePackages.EnsureInstalledAsync"/>). Returns whether it installed.
    /// </summary>
    /// <exception cref="InvalidOperationException">npm is missing, or <c>npm ci</c> failed (npm's error lines say why).</exception>
    public static Task<bool> EnsurePackagesAsync(TusNodeInstallation installation, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(installation);
        return NodePackages.EnsureInstalledAsync(installation.PackageDirectory, InstallTimeout, cancellationToken);
    }

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
            throw new InvalidOperationException($"The tus peer ({installation.ScriptPath}) did not start: {failure}. stderr: {ChildProcess.Tail(await stderr)}");
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
}
