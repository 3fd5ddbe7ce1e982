using System.Diagnostics;
using System.Globalization;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// <c>freight serve</c> (http://127.0.0.1:0, a fresh data directory) in a child process of its own, for blame tests
/// that need a server other than this process: one to kill mid-run, or one started as <c>dotnet run</c> starts an
/// app, by a parent that does not listen itself (<see cref="StartUnderShellAsync"/>: <c>sh</c>, waiting on it).
/// </summary>
internal sealed class ChildServer : IAsyncDisposable
{
    private readonly Process _process;
    private readonly string _dataDirectory;

    private ChildServer(Process process, string dataDirectory, Uri address, int serverProcessId)
    {
        _process = process;
        _dataDirectory = dataDirectory;
        Address = address;
        ServerProcessId = serverProcessId;
    }

    public Uri Address { get; }

    /// <summary>The process started: the server itself, or the shell above it.</summary>
    public int ProcessId => _process.Id;

    /// <summary>The process that serves (and listens).</summary>
    public int ServerProcessId { get; }

    public Uri Url(string pathAndQuery) => new(Address, pathAndQuery);

    public static Task<ChildServer> StartAsync() => StartAsync(underShell: false);

    public static Task<ChildServer> StartUnderShellAsync() => StartAsync(underShell: true);

    /// <summary>Kills the server (not the shell above it) and waits until it is gone.</summary>
    public async Task KillServerAsync()
    {
        using var server = Process.GetProcessById(ServerProcessId);
        server.Kill();
        await server.WaitForExitAsync();
    }

    private static async Task<ChildServer> StartAsync(bool underShell)
    {
        var muxer = Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" ? Environment.ProcessPath! : "dotnet";
        var data = Directory.CreateTempSubdirectory("freight-child-server-").FullName;
        string[] serve = [muxer, Path.Combine(AppContext.BaseDirectory, "Freight.Cli.dll"), "serve", "--urls", "http://127.0.0.1:0", "--data-dir", data,
            "--Freight:StopWhenInputCloses", "true"];

        // "; exit" keeps sh from exec-ing the last command: the server stays its child, as an app stays dotnet run's.
        var start = new ProcessStartInfo(underShell ? "sh" : serve[0])
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in underShell ? ["-c", "\"$@\"; exit $?", "sh", .. serve] : serve[1..])
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start)!;
        _ = process.StandardError.BaseStream.CopyToAsync(Stream.Null);
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        try
        {
            Uri? address = null;
            while (address is null)
            {
                var line = await process.StandardOutput.ReadLineAsync(timeout.Token) ?? throw new InvalidOperationException("freight serve exited before it listened.");
                if (line.StartsWith("listening: ", StringComparison.Ordinal))
                {
                    address = new Uri(line["listening: ".Length..].Trim());
                }
            }

            _ = process.StandardOutput.BaseStream.CopyToAsync(Stream.Null);
            return new ChildServer(process, data, address, underShell ? ChildOf(process.Id) : process.Id);
        }
        catch
        {
            process.Kill(entireProcessTree: true);
            process.Dispose();
            throw;
        }
    }

    /// <summary>The one child of <paramref name="parent"/> (<c>/proc/PID/stat</c>'s fourth field).</summary>
    private static int ChildOf(int parent)
    {
        var children = new List<int>();
        foreach (var directory in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(directory), NumberStyles.None, CultureInfo.InvariantCulture, out var pid))
            {
                continue;
            }

            try
            {
                var stat = File.ReadAllText(Path.Combine(directory, "stat"));
                if (stat[(stat.LastIndexOf(')') + 2)..].Split(' ')[1] == parent.ToString(CultureInfo.InvariantCulture))
                {
                    children.Add(pid);
                }
            }
            catch (IOException)
            {
            }
        }

        return Assert.Single(children);
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
        Directory.Delete(_dataDirectory, recursive: true);
    }
}
