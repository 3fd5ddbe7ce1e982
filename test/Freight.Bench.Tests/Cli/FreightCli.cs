using System.Diagnostics;
using Freight.Cli;

namespace Freight.Bench.Tests.Cli;

/// <summary>The <c>freight</c> command line in this process (<see cref="FreightCommandLine"/>): exit code, stdout, stderr.</summary>
internal static class FreightCli
{
    public static async Task<(int Exit, string Stdout, string Stderr)> RunAsync(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var exit = await FreightCommandLine.RunAsync(args, output, error);
        return (exit, output.ToString().ReplaceLineEndings("\n"), error.ToString().ReplaceLineEndings("\n"));
    }

    /// <summary>What <c>freight COMMAND --help</c> prints.</summary>
    public static string Help(string command)
    {
        var (exit, stdout, stderr) = RunAsync(command, "--help").GetAwaiter().GetResult();
        Assert.True(exit == 0, stderr);
        return stdout;
    }

    /// <summary>Runs the built CLI (<c>dotnet Freight.Cli.dll ARGS</c>) as users do: exit code, stdout, stderr.</summary>
    public static async Task<(int Exit, string Stdout, string Stderr)> RunProcessAsync(params string[] args)
    {
        var muxer = Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" ? Environment.ProcessPath! : "dotnet";
        var start = new ProcessStartInfo(muxer) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Freight.Cli.dll"));
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var patience = new CancellationTokenSource(TimeSpan.FromMinutes(1));
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync(patience.Token);
        var stderr = process.StandardError.ReadToEndAsync(patience.Token);
        await process.WaitForExitAsync(patience.Token);
        return (process.ExitCode, (await stdout).ReplaceLineEndings("\n"), (await stderr).ReplaceLineEndings("\n"));
    }
}
