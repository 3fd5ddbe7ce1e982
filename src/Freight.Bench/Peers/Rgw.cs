using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Freight.Bench.Peers;

/// <summary>
/// Ceph's RADOS Gateway as the S3 server of <c>--store s3</c>: a single-node cluster on 127.0.0.1 with objects in
/// RAM (memstore), run by the repository's <c>scripts/rgw.sh</c> in a directory of its own, the packages installed
/// by <c>scripts/install-rgw.sh</c> when missing (a quick no-op once installed; installing needs root and apt-get).
/// </summary>
public static partial class Rgw
{
    /// <summary>The S3 user's keys: rgw.sh's defaults, passed explicitly so the bench and the server agree.</summary>
    public const string AccessKey = "ciaccesskey";

    public const string SecretKey = "cisecretkey123";

    /// <summary>The region requests are signed for: RGW's default zone group answers to us-east-1.</summary>
    public const string Region = "us-east-1";

    /// <summary>install-rgw.sh takes ~30 s the first time (about 100 packages); 10 minutes survives a slow mirror.</summary>
    private static readonly TimeSpan InstallTimeout = TimeSpan.FromMinutes(10);

    /// <summary>rgw.sh start takes ~3–4 s; 5 minutes survives a loaded 2-core machine (its own waits are bounded too).</summary>
    private static readonly TimeSpan StartTimeout = TimeSpan.FromMinutes(5);

    /// <summary>rgw.sh stop takes ~6 s (each daemon gets up to 15 s after SIGTERM before a kill).</summary>
    internal static readonly TimeSpan StopTimeout = TimeSpan.FromMinutes(2);

    /// <summary>radosgw-admin and radosgw --version answer in well under a second.</summary>
    internal static readonly TimeSpan AdminTimeout = TimeSpan.FromMinutes(2);

    /// <summary>The repository's <c>scripts</c> directory (holding rgw.sh), or null when the bench runs outside a clone.</summary>
    public static string? FindScripts(string? start = null) =>
        NodePackages.FindRepositoryRoot(start) is { } root && File.Exists(Path.Combine(root, "scripts", "rgw.sh"))
            ? Path.Combine(root, "scripts")
            : null;

    /// <summary>
    /// Installs RGW when needed and starts a cluster on free ports in <c>/tmp/freight-rgw-XXXXXXXX</c> (short: the
    /// daemons' admin sockets live under it, and a Unix socket path has at most 107 bytes). Returns the running
    /// server, or null and why not: outside a clone, install-rgw.sh failed (not root, no apt-get, no mirror), or
    /// rgw.sh did not bring the cluster up (its output, with the daemons' log tails, says why).
    /// </summary>
    public static async Task<(RgwServer? Server, string? Unavailable)> StartAsync(CancellationToken cancellationToken)
    {
        var scripts = FindScripts();
        if (scripts is null)
        {
            return (null, $"scripts/rgw.sh was not found above {AppContext.BaseDirectory} (run the bench from a clone)");
        }

        ChildProcessResult install;
        await using (await InstallLock.AcquireAsync(Path.Combine(Path.GetTempPath(), "freight-install-rgw.lock"), InstallTimeout + TimeSpan.FromMinutes(1), cancellationToken))
        {
            install = await RunAsync("bash", [Path.Combine(scripts, "install-rgw.sh")], InstallTimeout, cancellationToken);
        }

        if (install.ExitCode != 0)
        {
            return (null, $"scripts/install-rgw.sh failed: {ChildProcess.Tail(install.Output, 2048)}");
        }

        var directory = Path.Combine("/tmp", "freight-rgw-" + Guid.NewGuid().ToString("N")[..8]);
        ChildProcessResult start;
        try
        {
            start = await RunAsync("bash", [Path.Combine(scripts, "rgw.sh"), "start", directory], StartTimeout, cancellationToken);
        }
        catch
        {
            // Cancelled (Ctrl+C) while it started: the script was killed; stop whatever daemons it had launched.
            await StopAsync(scripts, directory);
            throw;
        }

        var endpoint = EndpointLine().Match(start.Stdout);
        if (start.ExitCode != 0 || !endpoint.Success)
        {
            // rgw.sh stops what it started when it fails; this covers a start that printed no endpoint.
            await StopAsync(scripts, directory);
            return (null, $"scripts/rgw.sh start failed: {ChildProcess.Tail(start.Output, 4096)}");
        }

        try
        {
            var version = await GetVersionAsync(cancellationToken);
            return (new RgwServer(scripts, directory, new Uri(endpoint.Groups[1].Value), version, StartWatchdog(scripts, directory)), null);
        }
        catch
        {
            await StopAsync(scripts, directory);
            throw;
        }
    }

    /// <summary>"16.2.15" from <c>radosgw --version</c> ("ceph version 16.2.15 (…) pacific (stable)"); its whole line when it says something else.</summary>
    public static async Task<string> GetVersionAsync(CancellationToken cancellationToken)
    {
        var run = await RunAsync("radosgw", ["--version"], AdminTimeout, cancellationToken);
        var line = run.Stdout.Trim();
        var match = VersionText().Match(line);
        return match.Success ? match.Groups[1].Value : line;
    }

    /// <summary>rgw.sh stop, then the directory removed; never throws (a stop that fails must not hide why the bench ended).</summary>
    internal static async Task StopAsync(string scripts, string directory)
    {
        try
        {
            await RunAsync("bash", [Path.Combine(scripts, "rgw.sh"), "stop", directory], StopTimeout, CancellationToken.None);
        }
        catch (InvalidOperationException)
        {
            // bash could not be started: nothing ran, so there is nothing more to stop from here.
        }

        try
        {
            Directory.Delete(directory, recursive: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Best effort: a leftover temp directory must not fail the run.
        }
    }

    /// <summary>
    /// Runs a program to its end with the environment rgw.sh reads (free ports, never a developer's own RGW on
    /// 7480; our keys), killing it and its children past <paramref name="limit"/> or on cancellation.
    /// </summary>
    internal static async Task<ChildProcessResult> RunAsync(string program, IReadOnlyList<string> arguments, TimeSpan limit, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(program)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["RGW_PORT"] = "0";
        start.Environment["MON_PORT"] = "0";
        start.Environment["S3_ACCESS_KEY"] = AccessKey;
        start.Environment["S3_SECRET_KEY"] = SecretKey;
        var commandLine = string.Join(' ', [program, .. arguments]);
        Process? started;
        try
        {
            started = Process.Start(start);
        }
        catch (Win32Exception e)
        {
            throw new InvalidOperationException($"Could not start `{program}`: {e.Message}", e);
        }

        using var process = started ?? throw new InvalidOperationException($"Could not start `{program}`.");
        process.StandardInput.Close();
        var stdout = process.StandardOutput.ReadToEndAsync(CancellationToken.None);
        var stderr = process.StandardError.ReadToEndAsync(CancellationToken.None);
        var exited = await ChildProcess.WaitForExitOrKillAsync(process, limit, cancellationToken);
        cancellationToken.ThrowIfCancellationRequested();
        return new ChildProcessResult(commandLine, exited ? process.ExitCode : null, await stdout, await stderr);
    }

    /// <summary>
    /// A detached shell (its own session: a Ctrl+C on the terminal does not reach it) that waits for the bench to
    /// end, then stops the cluster and removes its directory, if the bench did not (killed, crashed). It leaves on
    /// its own within a second once a normal stop has removed the directory.
    /// </summary>
    private static Process? StartWatchdog(string scripts, string directory)
    {
        const string Script = """
            exec </dev/null >/dev/null 2>&1
            while kill -0 "$1" 2>/dev/null && [ -d "$3" ]; do sleep 1; done
            if [ -d "$3" ]; then bash "$2" stop "$3"; rm -rf "$3"; fi
            """;
        var start = new ProcessStartInfo("setsid") { UseShellExecute = false };
        foreach (var argument in (string[])["bash", "-c", Script, "freight-rgw-watchdog", Environment.ProcessId.ToString(CultureInfo.InvariantCulture), Path.Combine(scripts, "rgw.sh"), directory])
        {
            start.ArgumentList.Add(argument);
        }

        try
        {
            return Process.Start(start);
        }
        catch (Win32Exception)
        {
            // No setsid: dispose still stops the cluster; only a killed bench would leave it running.
            return null;
        }
    }

    [GeneratedRegex(@"^endpoint: (http://\S+)$", RegexOptions.Multiline)]
    private static partial Regex EndpointLine();

    [GeneratedRegex(@"ceph version (\S+)")]
    private static partial Regex VersionText();
}
