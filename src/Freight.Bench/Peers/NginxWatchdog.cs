using System.Diagnostics;
using System.Globalization;

namespace Freight.Bench.Peers;

/// <summary>
/// Stops nginx if the bench dies without disposing it (killed, crashed): a <c>sh</c> blocked reading a pipe
/// whose only writer is the bench. When that end closes, because <see cref="RequestStop"/> closed it or
/// because the bench's process is gone, the read returns and the shell sends nginx SIGTERM, after checking
/// that the pid is still an nginx. Nothing else in .NET sends SIGTERM, so a normal stop goes the same way.
/// </summary>
internal sealed class NginxWatchdog : IDisposable
{
    private const string Script = """read -r line ; [ "$(cat /proc/$1/comm 2>/dev/null)" = nginx ] && kill -TERM "$1" 2>/dev/null; exit 0""";

    private readonly Process _shell;

    private NginxWatchdog(Process shell) => _shell = shell;

    /// <summary>A watchdog over <paramref name="processId"/>; null when no <c>sh</c> could be started (dispose then kills nginx).</summary>
    public static NginxWatchdog? Start(int processId)
    {
        var start = new ProcessStartInfo("/bin/sh") { RedirectStandardInput = true, UseShellExecute = false };
        foreach (var argument in (string[])["-c", Script, "nginx-watchdog", processId.ToString(CultureInfo.InvariantCulture)])
        {
            start.ArgumentList.Add(argument);
        }

        try
        {
            return Process.Start(start) is { } shell ? new NginxWatchdog(shell) : null;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }

    /// <summary>Closes the pipe: the shell sends nginx SIGTERM (a fast shutdown) and exits. False when the shell is gone already.</summary>
    public bool RequestStop()
    {
        if (_shell.HasExited)
        {
            return false;
        }

        try
        {
            _shell.StandardInput.Close();
            return true;
        }
        catch (IOException)
        {
            return false;
        }
    }

    /// <summary>Waits briefly for the shell, kills it if it lingers (nginx is stopped by then), and releases it.</summary>
    public async Task StopAsync()
    {
        using var wait = new CancellationTokenSource(TimeSpan.FromSeconds(2));
        try
        {
            await _shell.WaitForExitAsync(wait.Token);
        }
        catch (OperationCanceledException)
        {
            _shell.Kill();
            await _shell.WaitForExitAsync(CancellationToken.None);
        }
    }

    /// <summary>Kills the shell without letting it signal nginx (nginx already exited: its pid may be reused).</summary>
    public void Abandon()
    {
        if (!_shell.HasExited)
        {
            _shell.Kill();
        }
    }

    public void Dispose() => _shell.Dispose();
}
