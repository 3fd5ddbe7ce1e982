using System.Diagnostics;

namespace Freight.Bench.Peers;

/// <summary>
/// A running nginx from <see cref="Nginx.StartAsync"/>: one process (its <see cref="ProcessId"/> is the
/// server's for /proc CPU and memory counters), or a master and its workers, on 127.0.0.1. Disposing stops it (SIGTERM, then a kill
/// after 5 s) and waits until it has exited; if the bench dies first, a watchdog shell stops it.
/// </summary>
public sealed class NginxServer : IAsyncDisposable
{
    /// <summary>How long nginx has to exit after SIGTERM: a fast shutdown takes milliseconds; 5 s before a kill.</summary>
    private static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(5);

    private readonly Process _process;
    private readonly NginxWatchdog? _watchdog;
    private int _disposed;

    internal NginxServer(Process process, NginxWatchdog? watchdog, NginxSite site, int port, string version)
    {
        _process = process;
        _watchdog = watchdog;
        ProcessId = process.Id;
        Version = version;
        BaseAddress = new Uri($"{(site.Tls ? "https" : "http")}://127.0.0.1:{port}/");
        ConfigPath = site.ConfigPath;
        ErrorLogPath = site.ErrorLogPath;
        PutDirectory = site.PutDirectory;
        DavAddress = site.PutDirectory is null ? null : new Uri(BaseAddress, "dav/");
    }

    /// <summary><c>http://127.0.0.1:PORT/</c> (<c>https://</c> with TLS): the root directory's files are under it.</summary>
    public Uri BaseAddress { get; }

    /// <summary>nginx's process: the only one, or the master of <see cref="NginxSiteOptions.WorkerProcesses"/> workers.</summary>
    public int ProcessId { get; }

    /// <summary>The master's worker processes now (none for nginx of one process).</summary>
    public IReadOnlyList<int> WorkerProcessIds => Nginx.Children(ProcessId);

    /// <summary>nginx's version, e.g. "1.22.1" (from <c>nginx -v</c>).</summary>
    public string Version { get; }

    /// <summary>The nginx.conf it runs, in the work directory.</summary>
    public string ConfigPath { get; }

    /// <summary>Its error log (warnings and errors), in the work directory.</summary>
    public string ErrorLogPath { get; }

    /// <summary><c>BaseAddress/dav/</c> when <see cref="NginxSiteOptions.EnableWebDavPut"/> is on: PUT here writes into <see cref="PutDirectory"/>.</summary>
    public Uri? DavAddress { get; }

    /// <summary>Where WebDAV PUTs land (full path), when enabled.</summary>
    public string? PutDirectory { get; }

    /// <summary>True once nginx has exited (on its own or by <see cref="DisposeAsync"/>).</summary>
    public bool HasExited => ExitCode is not null || ChildProcess.HasExited(_process);

    /// <summary>nginx's exit code once disposed: 0 after the SIGTERM of a normal stop, 137 after a kill.</summary>
    internal int? ExitCode { get; private set; }

    /// <summary>Pins nginx to the given CPUs (a bit mask), as the bench pins its own servers.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void SetAffinity(nint mask) => _process.ProcessorAffinity = mask;

    /// <summary>The error log's last lines, to say why a run went wrong.</summary>
    public Task<string> ReadErrorLogTailAsync() => Nginx.ReadTailAsync(ErrorLogPath);

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        try
        {
            if (_process.HasExited)
            {
                // Exited on its own: its pid may belong to someone else by now, so the watchdog must not signal it.
                _watchdog?.Abandon();
            }
            else if (_watchdog?.RequestStop() != true)
            {
                // A master's workers outlive its kill.
                _process.Kill(entireProcessTree: true);
            }

            await ChildProcess.WaitForExitOrKillAsync(_process, StopTimeout);
            ExitCode = _process.ExitCode;
            if (_watchdog is not null)
            {
                await _watchdog.StopAsync();
            }
        }
        finally
        {
            _watchdog?.Dispose();
            _process.Dispose();
        }
    }
}
