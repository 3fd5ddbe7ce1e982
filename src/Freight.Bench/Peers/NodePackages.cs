using System.Security.Cryptography;

namespace Freight.Bench.Peers;

/// <summary>
/// Node.js and the npm package folders of this repository (the tus peer, and the tests' tus-js-client and report
/// renderer): each has a package.json and a committed package-lock.json, and gets exactly the locked packages by
/// <c>npm ci</c> the first time it is used, and again whenever either file changes. A stamp in node_modules
/// (<see cref="StampFileName"/>: the SHA-256 of package.json and package-lock.json, written after a successful
/// install) says what node_modules holds; <c>npm ci</c> deletes node_modules first, so a failed or interrupted
/// install leaves no stamp behind.
/// </summary>
public static class NodePackages
{
    /// <summary>The stamp's name in node_modules.</summary>
    public const string StampFileName = ".freight-npm-ci";

    /// <summary>The install lock's name in the package folder (in .gitignore).</summary>
    public const string LockFileName = ".npm-ci.lock";

    /// <summary>The file that marks the repository's root directory.</summary>
    public const string SolutionFileName = "Freight.slnx";

    /// <summary>Another process may hold the install lock for as long as its own install takes, and a little longer.</summary>
    private static readonly TimeSpan LockSlack = TimeSpan.FromMinutes(1);

    /// <summary>node on PATH, else the usual places; null when not installed.</summary>
    public static string? FindNode() => Executables.Find("node", "/usr/bin/node", "/usr/local/bin/node");

    /// <summary>npm on PATH, else the usual places; null when not installed.</summary>
    public static string? FindNpm() => Executables.Find("npm", "/usr/bin/npm", "/usr/local/bin/npm");

    /// <summary>"v20.20.2" from <c>node --version</c> as a <see cref="Version"/>; null when it says something else.</summary>
    public static async Task<Version?> GetNodeVersionAsync(string node, CancellationToken cancellationToken)
    {
        var run = await ChildProcess.RunAsync(node, ["--version"], null, TimeSpan.FromSeconds(30), cancellationToken);
        return run.ExitCode == 0 && Version.TryParse(run.Stdout.Trim().TrimStart('v'), out var version) ? version : null;
    }

    /// <summary>
    /// The repository's root: the first directory at or above <paramref name="start"/> (default: the running
    /// program's own directory) holding <see cref="SolutionFileName"/>. Null outside a clone.
    /// </summary>
    public static string? FindRepositoryRoot(string? start = null)
    {
        for (var directory = new DirectoryInfo(start ?? AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, SolutionFileName)))
            {
                return directory.FullName;
            }
        }

        return null;
    }

    /// <summary>Whether node_modules holds what package.json and package-lock.json pin now (its stamp matches them).</summary>
    public static bool IsInstalled(string packageDirectory)
    {
        ArgumentException.ThrowIfNullOrEmpty(packageDirectory);
        var stamp = StampPath(packageDirectory);
        return ManifestHash(packageDirectory) is { } expected && File.Exists(stamp) && File.ReadAllText(stamp) == expected;
    }

    /// <summary>
    /// Runs <c>npm ci --no-audit --no-fund</c> in <paramref name="packageDirectory"/> unless its packages are
    /// installed (<see cref="IsInstalled"/>), then stamps node_modules. One install at a time per folder, across
    /// processes (<see cref="LockFileName"/>). Returns whether it installed.
    /// </summary>
    /// <param name="limit">How long <c>npm ci</c> may take before it is killed.</param>
    /// <exception cref="InvalidOperationException">
    /// package.json or package-lock.json is missing, npm is missing, or <c>npm ci</c> failed or ran too long (npm's error lines say why).
    /// </exception>
    public static async Task<bool> EnsureInstalledAsync(string packageDirectory, TimeSpan limit, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(packageDirectory);
        packageDirectory = Path.GetFullPath(packageDirectory);
        if (IsInstalled(packageDirectory))
        {
            return false;
        }

        await using var gate = await InstallLock.AcquireAsync(Path.Combine(packageDirectory, LockFileName), limit + LockSlack, cancellationToken);
        if (IsInstalled(packageDirectory))
        {
            // Another process installed while this one waited for the lock.
            return false;
        }

        var stamp = ManifestHash(packageDirectory)
            ?? throw new InvalidOperationException($"{packageDirectory} needs a package.json and a package-lock.json for npm ci to install from.");
        var npm = FindNpm() ?? throw new InvalidOperationException($"npm is not installed: the packages of {packageDirectory} cannot be installed.");
        var run = await ChildProcess.RunAsync(npm, ["ci", "--no-audit", "--no-fund"], packageDirectory, limit, cancellationToken);
        if (run.ExitCode != 0)
        {
            var ended = run.ExitCode is { } code ? $"exit code {code}" : $"killed after {limit.TotalSeconds:0} s";
            throw new InvalidOperationException($"npm ci in {packageDirectory} failed ({ended}): {NpmErrors(run.Output)}");
        }

        // A lock file without dependencies leaves no node_modules behind.
        Directory.CreateDirectory(Path.Combine(packageDirectory, "node_modules"));
        await File.WriteAllTextAsync(StampPath(packageDirectory), stamp, cancellationToken);
        return true;
    }

    /// <summary>Where the stamp of <paramref name="packageDirectory"/> is: <c>node_modules/.freight-npm-ci</c>.</summary>
    internal static string StampPath(string packageDirectory) => Path.Combine(packageDirectory, "node_modules", StampFileName);

    /// <summary>The SHA-256 (hex) of package.json followed by package-lock.json; null when either is missing.</summary>
    internal static string? ManifestHash(string packageDirectory)
    {
        var package = Path.Combine(packageDirectory, "package.json");
        var lockFile = Path.Combine(packageDirectory, "package-lock.json");
        if (!File.Exists(package) || !File.Exists(lockFile))
        {
            return null;
        }

        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        hash.AppendData(File.ReadAllBytes(package));
        hash.AppendData(File.ReadAllBytes(lockFile));
        return Convert.ToHexStringLower(hash.GetHashAndReset());
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
        return errors.Count == 0 ? ChildProcess.Tail(output) : string.Join(" ", errors.Count <= 4 ? errors : [.. errors.Take(3), "…", errors[^1]]);
    }
}
