using System.ComponentModel;
using System.Diagnostics;

namespace Freight.Bench.Peers;

/// <summary>Runs a program to its end, and stops one that has run too long: it and its children are killed.</summary>
public static class ChildProcess
{
    /// <summary>
    /// Runs <paramref name="fileName"/> (a path, or a name looked up on PATH) with its standard input closed and
    /// its output collected, killing it and its children past <paramref name="limit"/>.
    /// </summary>
    /// <param name="workingDirectory">Where it runs; null for the current directory.</param>
    /// <exception cref="InvalidOperationException">The program could not be started (not found, not executable).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled (the program is killed first).</exception>
    public static async Task<ChildProcessResult> RunAsync(
        string fileName, IEnumerable<string> arguments, string? workingDirectory, TimeSpan limit, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(fileName);
        ArgumentNullException.ThrowIfNull(arguments);
        var start = new ProcessStartInfo(fileName)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? "",
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var commandLine = string.Join(' ', [fileName, .. start.ArgumentList]);
        Process? started;
        try
        {
            started = Process.Start(start);
        }
        catch (Win32Exception e)
        {
            throw new InvalidOperationException($"Could not start `{fileName}`: {e.Message}", e);
        }

        using var process = started ?? throw new InvalidOperationException($"Could not start `{fileName}`.");
        process.StandardInput.Close();
        var stdout = process.StandardOutput.ReadToEndAsync(CancellationToken.None);
        var stderr = process.StandardError.ReadToEndAsync(CancellationToken.None);
        var exited = await WaitForExitOrKillAsync(process, limit, cancellationToken);
        cancellationToken.ThrowIfCancellationRequested();
        return new ChildProcessResult(commandLine, exited ? process.ExitCode : null, await stdout, await stderr);
    }

    /// <summary>
    /// Waits for <paramref name="process"/> to exit; past <paramref name="limit"/>, or once
    /// <paramref name="cancellationToken"/> is cancelled, kills it and its children and waits for that.
    /// Returns whether it exited on its own.
    /// </summary>
    internal static async Task<bool> WaitForExitOrKillAsync(Process process, TimeSpan limit, CancellationToken cancellationToken = default)
    {
        using var wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        wait.CancelAfter(limit);
        try
        {
            await process.WaitForExitAsync(wait.Token);
            return true;
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync(CancellationToken.None);
            return false;
        }
    }

    /// <summary>The end of a program's output, trimmed: its last <paramref name="maxChars"/> characters, enough to say why it failed.</summary>
    internal static string Tail(string output, int maxChars = 4096)
    {
        output = output.Trim();
        return output.Length <= maxChars ? output : "…" + output[^maxChars..];
    }

    /// <summary>Whether <paramref name="process"/> has exited; true once it is disposed too (it was stopped).</summary>
    internal static bool HasExited(Process process)
    {
        try
        {
            return process.HasExited;
        }
        catch (InvalidOperationException)
        {
            return true;
        }
    }
}
