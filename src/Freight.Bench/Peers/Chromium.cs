namespace Freight.Bench.Peers;

/// <summary>
/// Debian's headless Chromium at <see cref="ExecutablePath"/>, the browser the tests drive through playwright-core (the
/// HTML report's render, a page on another origin using serve): installed by <c>scripts/install-chromium.sh</c> (root
/// and apt-get) when missing, one install at a time on the machine.
/// </summary>
public static class Chromium
{
    public const string ExecutablePath = "/usr/bin/chromium";

    /// <summary>
    /// Installs the browser when it is missing; returns null when it is there, else why it could not be installed
    /// (the script's output), for the caller's failure message.
    /// </summary>
    public static async Task<string?> EnsureInstalledAsync(string repositoryRoot, TimeSpan patience, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(repositoryRoot);
        if (File.Exists(ExecutablePath))
        {
            return null;
        }

        // Another test process may hold the lock for as long as its own install takes.
        var lockPath = Path.Combine(Path.GetTempPath(), "freight-install-chromium.lock");
        await using var browserLock = await InstallLock.AcquireAsync(lockPath, patience + TimeSpan.FromMinutes(1), cancellationToken);
        if (File.Exists(ExecutablePath))
        {
            return null;
        }

        var script = Path.Combine(repositoryRoot, "scripts", "install-chromium.sh");
        var install = await ChildProcess.RunAsync("bash", [script], repositoryRoot, patience, cancellationToken);
        return install.ExitCode == 0 && File.Exists(ExecutablePath)
            ? null
            : $"{ExecutablePath} is missing and scripts/install-chromium.sh could not install it (it needs root and apt-get): " + install.Describe();
    }
}
