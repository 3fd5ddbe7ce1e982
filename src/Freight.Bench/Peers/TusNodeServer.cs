using System.Diagnostics;

namespace Freight.Bench.Peers;

/// <summary>
/// A running tus peer from <see cref="TusNode.StartAsync"/>: one Node process (its <see cref="ProcessId"/> is
/// the server's for /proc CPU and memory counters) on 127.0.0.1, creating uploads at <see cref="Endpoint"/>.
/// Disposing closes its standard input, on which it exits at once (the path a dying bench takes too), kills
/// it if it has not gone after 5 s, and waits until it has exited.
/// </summary>
public sealed class TusNodeServer : IAsyncDisposable
{
    /// <summary>How long Node has to exit once its input closes: milliseconds in practice; 5 s before a kill.</summary>
    private static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(5);

    private readonly Process _process;
    private int _disposed;

    internal TusNodeServer(Process process, Uri baseAddress, Version nodeVersion, string storeDirectory)
    {
        _process = process;
        ProcessId = process.Id;
        BaseAddress = baseAddress;
        Endpoint = new Uri(baseAddress, "/files");
        NodeVersion = nodeVersion;
        StoreDirectory = storeDirectory;
    }

    /// <summary><c>http://127.0.0.1:PORT/</c>, as the server printed it.</summary>
    public Uri BaseAddress { get; }

    /// <summary>The tus creation endpoint (<c>/files</c>): uploads are created by POST here and live below it.</summary>
    public Uri Endpoint { get; }

    /// <summary>Node's process.</summary>
    public int ProcessId { get; }

    public Version NodeVersion { get; }

    /// <summary>The file store's directory (full path).</summary>
    public string StoreDirectory { get; }

    /// <summary>Where the file store keeps upload <paramref name="id"/>'s bytes: <c>{StoreDirectory}/{id}</c>.</summary>
    public string StoredFilePath(string id)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        var path = Path.GetFullPath(Path.Combine(StoreDirectory, id));
        return Path.GetDirectoryName(path) == StoreDirectory ? path : throw new ArgumentException($"'{id}' is not an upload id.", nameof(id));
    }

    /// <summary>True once Node has exited (on its own or by <see cref="DisposeAsync"/>).</summary>
    public bool HasExited => ExitCode is not null || ChildProcess.HasExited(_process);

    /// <summary>Node's exit code once disposed: 0 when it left on its input closing, 137 after a kill.</summary>
    public int? ExitCode { get; private set; }

    /// <summary>Pins Node to the given CPUs (a bit mask), as the bench pins its own servers.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void SetAffinity(nint mask) => _process.ProcessorAffinity = mask;

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        try
        {
            try
            {
                _process.StandardInput.Close();
            }
            catch (IOException)
            {
                // Already gone: the pipe's reader closed.
            }

            await ChildProcess.WaitForExitOrKillAsync(_process, StopTimeout);
            ExitCode = _process.ExitCode;
        }
        finally
        {
            _process.Dispose();
        }
    }
}
