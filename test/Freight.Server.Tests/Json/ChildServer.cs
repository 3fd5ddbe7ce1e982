using System.Diagnostics;

namespace Freight.Server.Tests.Json;

/// <summary>
/// <c>freight serve</c> in a child process with its own ASPNETCORE_TEMP (ASP.NET Core reads it once per process),
/// a watcher on that directory, every line it logs (Information and up), and stdin as its lifeline
/// (<c>--Freight:StopWhenInputCloses</c>: it stops when the test closes stdin, or dies with the test run).
/// </summary>
internal sealed class ChildServer : IAsyncDisposable
{
    // Guards against a hang; no test asserts on time.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(60);

    private readonly Process _process;
    private readonly FileSystemWatcher _watcher;
    private readonly List<string> _output = [];
    private readonly List<string> _created = [];
    private readonly TaskCompletionSource<Uri> _listening = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Task _stdout;
    private readonly Task _stderr;

    private ChildServer(string root, Process process, FileSystemWatcher watcher)
    {
        Root = root;
        _process = process;
        _watcher = watcher;
        _stdout = PumpAsync(process.StandardOutput);
        _stderr = PumpAsync(process.StandardError);
    }

    public string Root { get; }

    /// <summary>The server's ASPNETCORE_TEMP.</summary>
    public string TempDirectory => Path.Combine(Root, "aspnetcore-temp");

    public Uri Address { get; private set; } = null!;

    public static async Task<ChildServer> StartAsync()
    {
        var root = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
        var temp = Directory.CreateDirectory(Path.Combine(root, "aspnetcore-temp")).FullName;
        var watcher = new FileSystemWatcher(temp) { IncludeSubdirectories = true };

        var muxer = Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" ? Environment.ProcessPath! : "dotnet";
        var start = new ProcessStartInfo(muxer)
        {
            WorkingDirectory = root,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[]
        {
            Path.Combine(AppContext.BaseDirectory, "Freight.Cli.dll"), "serve",
            "--urls", "http://127.0.0.1:0", "--data-dir", Path.Combine(root, "data"), "--Freight:StopWhenInputCloses", "true",
        })
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var name in start.Environment.Keys.Where(k => k.StartsWith("FREIGHT_", StringComparison.OrdinalIgnoreCase)).ToList())
        {
            start.Environment.Remove(name);
        }

        start.Environment["ASPNETCORE_TEMP"] = temp;
        start.Environment["Logging__LogLevel__Default"] = "Information";

        var server = new ChildServer(root, Process.Start(start)!, watcher);
        watcher.Created += (_, e) =>
        {
            lock (server._created)
            {
                server._created.Add(e.Name ?? e.FullPath);
            }
        };
        watcher.EnableRaisingEvents = true;
        server.Address = await server._listening.Task.WaitAsync(s_patience);
        return server;
    }

    /// <summary>The files in ASPNETCORE_TEMP now.</summary>
    public FileInfo[] TempFiles() => new DirectoryInfo(TempDirectory).GetFiles("*", SearchOption.AllDirectories);

    /// <summary>Every file the watcher saw created in ASPNETCORE_TEMP so far.</summary>
    public IReadOnlyList<string> CreatedTempFiles()
    {
        lock (_created)
        {
            return [.. _created];
        }
    }

    /// <summary>Waits (bounded) until ASPNETCORE_TEMP is empty; false if it never became so.</summary>
    public async Task<bool> TempDirectoryEmptiesAsync(TimeSpan patience)
    {
        var deadline = DateTime.UtcNow + patience;
        while (TempFiles().Length > 0)
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            await Task.Delay(20);
        }

        return true;
    }

    /// <summary>Closes stdin, waits for the server to stop by itself, and returns its exit code and every line it wrote.</summary>
    public async Task<(int ExitCode, IReadOnlyList<string> Output)> StopAsync()
    {
        _process.StandardInput.Close();
        using var limit = new CancellationTokenSource(s_patience);
        await _process.WaitForExitAsync(limit.Token);
        await Task.WhenAll(_stdout, _stderr);
        lock (_output)
        {
            return (_process.ExitCode, [.. _output]);
        }
    }

    public async ValueTask DisposeAsync()
    {
        _watcher.Dispose();
        if (!_process.HasExited)
        {
            _process.Kill();
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
        if (Directory.Exists(Root))
        {
            Directory.Delete(Root, recursive: true);
        }
    }

    private async Task PumpAsync(StreamReader reader)
    {
        // Drained all along: a child blocked on a full stdout pipe would stall its requests.
        while (await reader.ReadLineAsync() is { } line)
        {
            lock (_output)
            {
                _output.Add(line);
            }

            if (line.StartsWith("listening: ", StringComparison.Ordinal))
            {
                _listening.TrySetResult(new Uri(line["listening: ".Length..]));
            }
        }

        lock (_output)
        {
            _listening.TrySetException(new InvalidOperationException($"freight serve ended before listening:\n{string.Join('\n', _output)}"));
        }
    }
}
