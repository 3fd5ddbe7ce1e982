using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Freight.Bench.Peers;

/// <summary>
/// nginx as the static-file peer: one process of the system's nginx (<c>scripts/install-peers.sh</c>
/// installs it), serving a directory on a free 127.0.0.1 port with its whole state (config, pid, logs,
/// temporary files) in a work directory of ours. The system's nginx service is never involved. The same
/// process runs as a reverse proxy in front of <c>freight serve</c> for the tests of the shipped proxy config.
/// </summary>
public static class Nginx
{
    /// <summary>How long nginx has to bind and accept a connection: it takes milliseconds; 10 s survives a loaded 2-core CI machine.</summary>
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(10);

    /// <summary>How often the start polls for the pid file and a connection.</summary>
    private static readonly TimeSpan ReadyPoll = TimeSpan.FromMilliseconds(20);

    /// <summary>The free port can be taken between our probe closing it and nginx binding it; a new port fixes that.</summary>
    private const int StartAttempts = 3;

    /// <summary>nginx on PATH, else /usr/sbin/nginx (Debian's, off a non-root PATH); null when not installed.</summary>
    public static string? Find() => Executables.Find("nginx", "/usr/sbin/nginx");

    /// <summary>
    /// Starts nginx serving <paramref name="options"/>: returns once it accepts connections, or null when
    /// nginx is not installed. Throws <see cref="InvalidOperationException"/> with the error log's tail when
    /// it does not start.
    /// </summary>
    public static Task<NginxServer?> StartAsync(NginxSiteOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        var site = Resolve(options);
        return StartAsync(site, port => BuildConfig(site, port), cancellationToken);
    }

    /// <summary>
    /// Starts nginx as a reverse proxy of the caller's (a test's, in front of <c>freight serve</c>): the same one process
    /// with its whole state in <paramref name="workDirectory"/>, whose http block holds the temp paths there and then
    /// <paramref name="servers"/>' text for the free port it is given: upstream and server blocks, one of which listens
    /// on <c>127.0.0.1:PORT</c>; a master and <paramref name="workerProcesses"/> workers when given, as in production
    /// (<see cref="NginxSiteOptions.WorkerProcesses"/>). Null when nginx is not installed; throws as
    /// <see cref="StartAsync(NginxSiteOptions, CancellationToken)"/> does.
    /// </summary>
    public static Task<NginxServer?> StartProxyAsync(string workDirectory, Func<int, string> servers, CancellationToken cancellationToken, int? workerProcesses = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(workDirectory);
        ArgumentNullException.ThrowIfNull(servers);
        ArgumentOutOfRangeException.ThrowIfLessThan(workerProcesses ?? 1, 1);
        var work = Path.TrimEndingDirectorySeparator(Path.GetFullPath(workDirectory));
        Directory.CreateDirectory(work);
        // No directory is served: the work directory stands as the site's root.
        var site = new NginxSite(work, work, PutDirectory: null, PutTempDirectory: null) { WorkerProcesses = workerProcesses };
        return StartAsync(site, port => BuildProxyConfig(site, servers(port)), cancellationToken);
    }

    private static async Task<NginxServer?> StartAsync(NginxSite site, Func<int, string> buildConfig, CancellationToken cancellationToken)
    {
        var executable = Find();
        if (executable is null)
        {
            return null;
        }

        var version = await GetVersionAsync(executable, cancellationToken);
        for (var attempt = 1; ; attempt++)
        {
            var port = FreeLoopbackPort();
            await File.WriteAllTextAsync(site.ConfigPath, buildConfig(port), cancellationToken);
            File.Delete(site.PidPath);
            File.Delete(site.ErrorLogPath);

            var process = StartProcess(executable, site);
            var stderr = process.StandardError.ReadToEndAsync(CancellationToken.None);

            // Watched from the start, so a bench killed while nginx starts leaves no nginx behind either.
            var watchdog = NginxWatchdog.Start(process.Id);
            string? failure;
            try
            {
                failure = await WaitUntilReadyAsync(process, site.PidPath, port, site.WorkerProcesses ?? 0, cancellationToken);
            }
            catch
            {
                await StopAsync(process, watchdog);
                throw;
            }

            if (failure is null)
            {
                return new NginxServer(process, watchdog, site, port, version);
            }

            await StopAsync(process, watchdog);
            var log = $"{await ReadTailAsync(site.ErrorLogPath)}\n{await stderr}".Trim();
            if (attempt < StartAttempts && log.Contains("Address already in use", StringComparison.Ordinal))
            {
                continue;
            }

            throw new InvalidOperationException($"nginx did not start on 127.0.0.1:{port}: {failure}. Error log ({site.ErrorLogPath}): {log}");
        }
    }

    /// <summary>"1.22.1" from <c>nginx -v</c>, which prints "nginx version: nginx/1.22.1" on stderr.</summary>
    public static async Task<string> GetVersionAsync(string executable, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(executable) { RedirectStandardError = true, RedirectStandardOutput = true, UseShellExecute = false };
        start.ArgumentList.Add("-v");
        using var process = Process.Start(start) ?? throw new InvalidOperationException("Could not run nginx -v.");
        var output = process.StandardOutput.ReadToEndAsync(cancellationToken);
        var line = (await process.StandardError.ReadToEndAsync(cancellationToken)).Trim();
        await output;
        await process.WaitForExitAsync(cancellationToken);
        var slash = line.IndexOf("nginx/", StringComparison.Ordinal);
        return slash < 0 ? line : line[(slash + "nginx/".Length)..].Split(' ')[0];
    }

    /// <summary>
    /// The configuration: one process (no master, so its pid is the server's for /proc counters; as root it
    /// never switches user, since only worker processes do) unless <see cref="NginxSite.WorkerProcesses"/> asks for a
    /// master and workers, loopback only, no access log (it would cost
    /// the server a write per request), sendfile, open files kept as Freight keeps them, and keep-alive long enough
    /// that a run never reconnects.
    /// </summary>
    internal static string BuildConfig(NginxSite site, int port)
    {
        var config = new StringBuilder();
        config.AppendLine(CultureInfo.InvariantCulture, $$"""
            {{Preamble(site)}}

            events {
                # Far above the 256 connections the static suite opens.
                worker_connections 4096;
            }

            http {
                access_log off;
                sendfile on;
                tcp_nopush on;
                # One connection per client connection for the whole run: reconnects would be measured as latency.
                keepalive_requests 1000000;
                keepalive_timeout 75s;
                # Open files kept between requests, as Freight's download path keeps them by default (FileCacheOptions:
                # up to 1,000, trusted for 1 s, closed after 5 s unasked): without it nginx opens, stats and closes
                # the file on every request and the comparison measures that, not the send (4 KiB under wrk: 25 µs of
                # nginx's CPU a response without, 17 µs with; docs/results/2026-11-27-nginx-file-cache.md).
                open_file_cache max=1000 inactive=5s;
                open_file_cache_valid 1s;
                types {
                    text/html html;
                    text/plain txt;
                    application/json json;
                }
                default_type application/octet-stream;
                {{TempPaths(site)}}

                server {
                    listen 127.0.0.1:{{port}}{{(site.Tls ? " ssl" : "")}};
                    root {{Quote(site.RootDirectory)}};
            """);
        if (site.Tls)
        {
            config.AppendLine(CultureInfo.InvariantCulture, $$"""
                        ssl_certificate {{Quote(site.TlsCertificatePath!)}};
                        ssl_certificate_key {{Quote(site.TlsKeyPath!)}};
                        ssl_protocols TLSv1.3 TLSv1.2;
                """);
        }

        if (site.PutDirectory is not null)
        {
            config.AppendLine(CultureInfo.InvariantCulture, $$"""

                        location /dav/ {
                            alias {{Quote(site.PutDirectory + "/")}};
                            # DELETE too: the files suite removes nginx's previous upload through nginx, as it
                            # removes Freight's through the files API, so both servers' CPU holds the same unlink.
                            dav_methods PUT DELETE;
                            dav_access user:rw group:r all:r;
                            create_full_put_path on;
                            client_max_body_size 0;
                            # Read the body in 1 MiB pieces (default 16 KiB: a write(2) per 16 KiB to the temp file).
                            client_body_buffer_size 1m;
                            # In the target's file system, so a finished PUT is renamed into place, not copied.
                            client_body_temp_path {{Quote(site.PutTempDirectory!)}};
                        }
                """);
        }

        config.AppendLine("""
                }
            }
            """);
        return config.ToString();
    }

    /// <summary>A reverse proxy's configuration: the process and temp paths of a site's, <paramref name="servers"/> for the rest.</summary>
    internal static string BuildProxyConfig(NginxSite site, string servers) => $$"""
        {{Preamble(site)}}

        events {
            worker_connections 1024;
        }

        http {
            access_log off;
            {{TempPaths(site)}}

        {{servers}}
        }
        """;

    /// <summary>
    /// In the foreground, one process (no master, so its pid is the server's) unless <see cref="NginxSite.WorkerProcesses"/>
    /// asks for a master and workers; its pid, lock and error log in the work directory.
    /// </summary>
    private static string Preamble(NginxSite site) => $"""
        # Written for one run by Freight (Freight.Bench.Peers.Nginx): its state stays in this directory.
        daemon off;
        master_process {(site.WorkerProcesses is null ? "off" : "on")};
        worker_processes {site.WorkerProcesses ?? 1};{(site.WorkerProcesses is not null && Environment.IsPrivilegedProcess ? "\nuser root;" : "")}
        error_log {Quote(site.ErrorLogPath)} warn;
        pid {Quote(site.PidPath)};
        lock_file {Quote(Path.Combine(site.WorkDirectory, "nginx.lock"))};
        """;

    /// <summary>Every temp path nginx has, in the work directory: never /var/lib/nginx.</summary>
    private static string TempPaths(NginxSite site) => $"""
        client_body_temp_path {Quote(Path.Combine(site.WorkDirectory, "client_body_temp"))};
            proxy_temp_path {Quote(Path.Combine(site.WorkDirectory, "proxy_temp"))};
            fastcgi_temp_path {Quote(Path.Combine(site.WorkDirectory, "fastcgi_temp"))};
            uwsgi_temp_path {Quote(Path.Combine(site.WorkDirectory, "uwsgi_temp"))};
            scgi_temp_path {Quote(Path.Combine(site.WorkDirectory, "scgi_temp"))};
        """;

    internal static NginxSite Resolve(NginxSiteOptions options)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(options.RootDirectory);
        ArgumentException.ThrowIfNullOrWhiteSpace(options.WorkDirectory);
        var root = Path.TrimEndingDirectorySeparator(Path.GetFullPath(options.RootDirectory));
        if (!Directory.Exists(root))
        {
            throw new DirectoryNotFoundException($"nginx's root directory {root} does not exist.");
        }

        var work = Path.TrimEndingDirectorySeparator(Path.GetFullPath(options.WorkDirectory));
        Directory.CreateDirectory(work);
        string? put = null;
        string? putTemp = null;
        if (options.EnableWebDavPut)
        {
            put = Path.TrimEndingDirectorySeparator(Path.GetFullPath(options.PutDirectory ?? Path.Combine(work, "put")));
            putTemp = Path.Combine(put, ".nginx-put-temp");
            Directory.CreateDirectory(putTemp);
        }

        if ((options.TlsCertificatePath is null) != (options.TlsKeyPath is null))
        {
            throw new ArgumentException("nginx's TLS needs both a certificate and a key file.", nameof(options));
        }

        if (options.WorkerProcesses is < 1)
        {
            throw new ArgumentException("nginx needs at least one worker process.", nameof(options));
        }

        return new NginxSite(root, work, put, putTemp, options.TlsCertificatePath is null ? null : Path.GetFullPath(options.TlsCertificatePath), options.TlsKeyPath is null ? null : Path.GetFullPath(options.TlsKeyPath))
        {
            WorkerProcesses = options.WorkerProcesses,
        };
    }

    /// <summary>
    /// A path as an nginx string. Paths with a quote, backslash or '$' (nginx expands variables in root and
    /// alias) or a control character are refused rather than escaped: the bench's own directories have none.
    /// </summary>
    private static string Quote(string path)
    {
        foreach (var c in path)
        {
            if (c is '"' or '\\' or '$' || char.IsControl(c))
            {
                throw new ArgumentException($"nginx cannot be given the path {path}: it contains '{c}'.", nameof(path));
            }
        }

        return $"\"{path}\"";
    }

    private static int FreeLoopbackPort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }

    private static Process StartProcess(string executable, NginxSite site)
    {
        // -p and -e keep even the messages before the config is read out of /usr/share/nginx and stderr's default log.
        var start = new ProcessStartInfo(executable)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = site.WorkDirectory,
        };
        foreach (var argument in (string[])["-p", site.WorkDirectory + "/", "-c", site.ConfigPath, "-e", site.ErrorLogPath])
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {executable}.");
        _ = process.StandardOutput.BaseStream.CopyToAsync(Stream.Null, CancellationToken.None);
        return process;
    }

    /// <summary>
    /// Null once nginx has written its pid file (it does so after binding its listener, so the port is its
    /// own and not a process that took it first), has its <paramref name="workers"/> (a master forks them after), and
    /// accepts a connection; otherwise why not.
    /// </summary>
    private static async Task<string?> WaitUntilReadyAsync(Process process, string pidPath, int port, int workers, CancellationToken cancellationToken)
    {
        var deadline = Stopwatch.GetTimestamp() + (long)(StartTimeout.TotalSeconds * Stopwatch.Frequency);
        var endPoint = new IPEndPoint(IPAddress.Loopback, port);
        while (true)
        {
            if (process.HasExited)
            {
                return $"it exited with code {process.ExitCode}";
            }

            if (File.Exists(pidPath) && (await ReadAllTextOrEmptyAsync(pidPath)).Trim() == process.Id.ToString(CultureInfo.InvariantCulture)
                && Children(process.Id).Count >= workers)
            {
                using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                try
                {
                    await client.ConnectAsync(endPoint, cancellationToken);
                    return process.HasExited ? $"it exited with code {process.ExitCode}" : null;
                }
                catch (SocketException)
                {
                    // Not accepting yet.
                }
            }

            if (Stopwatch.GetTimestamp() > deadline)
            {
                return $"it did not accept a connection within {StartTimeout.TotalSeconds:0} s";
            }

            await Task.Delay(ReadyPoll, cancellationToken);
        }
    }

    /// <summary>A process's children (<c>/proc/PID/task/PID/children</c>): a master nginx's workers; none when it cannot be read.</summary>
    internal static IReadOnlyList<int> Children(int processId)
    {
        try
        {
            var id = processId.ToString(CultureInfo.InvariantCulture);
            return [.. File.ReadAllText($"/proc/{id}/task/{id}/children").Split(' ', StringSplitOptions.RemoveEmptyEntries)
                .Select(child => int.Parse(child, CultureInfo.InvariantCulture)).Order()];
        }
        catch (IOException)
        {
            return [];
        }
    }

    private static async Task<string> ReadAllTextOrEmptyAsync(string path)
    {
        try
        {
            return await File.ReadAllTextAsync(path);
        }
        catch (IOException)
        {
            return "";
        }
    }

    /// <summary>The last lines of a log (at most 4 KiB), to say in an exception why nginx failed.</summary>
    internal static async Task<string> ReadTailAsync(string path)
    {
        const int TailBytes = 4096;
        try
        {
            await using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            file.Seek(Math.Max(0, file.Length - TailBytes), SeekOrigin.Begin);
            using var reader = new StreamReader(file);
            return (await reader.ReadToEndAsync()).Trim();
        }
        catch (IOException)
        {
            return "(no error log)";
        }
    }

    /// <summary>Kills an nginx that did not start properly, waits for it to go, then dismisses its watchdog.</summary>
    private static async Task StopAsync(Process process, NginxWatchdog? watchdog)
    {
        if (!process.HasExited)
        {
            process.Kill();
        }

        await process.WaitForExitAsync(CancellationToken.None);
        process.Dispose();
        watchdog?.Abandon();
        watchdog?.Dispose();
    }
}
