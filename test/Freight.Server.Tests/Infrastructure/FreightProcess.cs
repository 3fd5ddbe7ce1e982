using System.Diagnostics;
using System.Globalization;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>
/// <c>freight serve</c> as users run it: the CLI in a child process, with its own environment (so
/// <c>FREIGHT_</c> variables never leak into the servers other tests run in this process), its stdout
/// read line by line, and a SIGTERM to stop it.
/// </summary>
internal sealed class FreightProcess : IAsyncDisposable
{
    // Guards against a hang; no test asserts on time.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(60);

    private readonly Process _process;
    private readonly Task<string> _stderr;

    private FreightProcess(Process process)
    {
        _process = process;
        _stderr = process.StandardError.ReadToEndAsync();
    }

    /// <summary>The server's process id, for reading its resources from <c>/proc/{id}</c>.</summary>
    public int Id => _process.Id;

    /// <summary>
    /// Starts <c>freight serve <paramref name="arguments"/></c> with <paramref name="environment"/> added to a FREIGHT_-free
    /// environment; through <paramref name="launcher"/> when given (a command that runs the rest, e.g. setpriv dropping a capability).
    /// </summary>
    public static FreightProcess StartServe(string workingDirectory, IEnumerable<string> arguments, IReadOnlyDictionary<string, string>? environment = null, IReadOnlyList<string>? launcher = null) =>
        StartApp(workingDirectory, Path.Combine(AppContext.BaseDirectory, "Freight.Cli.dll"), ["serve", .. arguments], environment, launcher);

    /// <summary>Starts <c>dotnet <paramref name="assembly"/> <paramref name="arguments"/></c> (the CLI, or an app such as the sample that prints <c>listening:</c> lines too).</summary>
    public static FreightProcess StartApp(string workingDirectory, string assembly, IEnumerable<string> arguments, IReadOnlyDictionary<string, string>? environment = null, IReadOnlyList<string>? launcher = null)
    {
        var muxer = Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" ? Environment.ProcessPath! : "dotnet";
        var start = new ProcessStartInfo(launcher is { Count: > 0 } ? launcher[0] : muxer)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (launcher is { Count: > 0 })
        {
            foreach (var argument in launcher.Skip(1).Append(muxer))
            {
                start.ArgumentList.Add(argument);
            }
        }

        start.ArgumentList.Add(assembly);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var name in start.Environment.Keys.Where(k => k.StartsWith("FREIGHT_", StringComparison.OrdinalIgnoreCase)).ToList())
        {
            start.Environment.Remove(name);
        }

        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[name] = value;
        }

        return new FreightProcess(Process.Start(start)!);
    }

    /// <summary>Reads stdout until <paramref name="listeningLines"/> <c>listening:</c> lines came; returns every line read.</summary>
    public async Task<IReadOnlyList<string>> ReadUntilListeningAsync(int listeningLines)
    {
        using var limit = new CancellationTokenSource(s_patience);
        var lines = new List<string>();
        while (lines.Count(l => l.StartsWith("listening: ", StringComparison.Ordinal)) < listeningLines)
        {
            var line = await _process.StandardOutput.ReadLineAsync(limit.Token)
                ?? throw new InvalidOperationException($"freight serve ended before listening: {string.Join('\n', lines)}\n{await _stderr}");
            lines.Add(line);
        }

        return lines;
    }

    /// <summary>
    /// Reads the rest of stdout (after <see cref="ReadUntilListeningAsync"/>) until the process ends: a server that
    /// logs for minutes must have its pipe drained, or its console logger blocks once the pipe is full.
    /// </summary>
    public Task<string> ReadRestOfOutputAsync() => _process.StandardOutput.ReadToEndAsync();

    /// <summary>Waits for the process to end by itself; returns its exit code and stderr.</summary>
    public async Task<(int ExitCode, string Stderr)> WaitForExitAsync()
    {
        using var limit = new CancellationTokenSource(s_patience);
        await _process.WaitForExitAsync(limit.Token);
        return (_process.ExitCode, await _stderr);
    }

    /// <summary>Asks the server to shut down as Ctrl+C or a service manager would (SIGTERM) and returns its exit code.</summary>
    public async Task<int> TerminateAsync()
    {
        using (var kill = Process.Start("kill", ["-TERM", _process.Id.ToString(CultureInfo.InvariantCulture)]))
        {
            await kill.WaitForExitAsync();
        }

        return (await WaitForExitAsync()).ExitCode;
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill();
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
    }
}
