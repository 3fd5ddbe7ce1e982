using System.Diagnostics;
using System.Text.Json;
using System.Text.RegularExpressions;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>Runs <c>freight load</c> as users do (<c>dotnet Freight.Cli.dll load ARGS --json FILE</c>) and reads its result.</summary>
internal static partial class LoadCli
{
    /// <summary>Beyond any run here (≤ 10 s) plus start-up on a loaded machine: a run still going then has hung.</summary>
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    public sealed record Outcome(int Exit, string Stdout, string Stderr, BenchReport? Report)
    {
        public ScenarioResult Row => Assert.Single(Report!.Results);
    }

    public static async Task<Outcome> RunAsync(params string[] args)
    {
        var json = Path.Combine(Path.GetTempPath(), $"freight-load-{Guid.NewGuid():N}.json");
        try
        {
            return await RunAsync(json, null, args);
        }
        finally
        {
            File.Delete(json);
        }
    }

    /// <summary>
    /// Runs with <c>--json</c> <paramref name="json"/> (left for the caller) and, once <paramref name="underWay"/> completes,
    /// sends the process SIGINT, as Ctrl+C in a terminal does.
    /// </summary>
    public static Task<Outcome> InterruptAsync(string json, Func<Task> underWay, params string[] args) =>
        RunAsync(json, async process =>
        {
            await underWay();
            using var kill = Process.Start("kill", ["-INT", process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
            await kill.WaitForExitAsync();
        }, args);

    private static async Task<Outcome> RunAsync(string json, Func<Process, Task>? meanwhile, string[] args)
    {
        var muxer = Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" ? Environment.ProcessPath! : "dotnet";
        var start = new ProcessStartInfo(muxer)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Freight.Cli.dll"));
        start.ArgumentList.Add("load");
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        start.ArgumentList.Add("--json");
        start.ArgumentList.Add(json);
        using var patience = new CancellationTokenSource(Patience);
        using var process = Process.Start(start)!;
        try
        {
            var stdout = process.StandardOutput.ReadToEndAsync(patience.Token);
            var stderr = process.StandardError.ReadToEndAsync(patience.Token);
            if (meanwhile is not null)
            {
                await meanwhile(process);
            }

            await process.WaitForExitAsync(patience.Token);
            BenchReport? report = null;
            if (File.Exists(json))
            {
                await using var file = File.OpenRead(json);
                report = await JsonSerializer.DeserializeAsync<BenchReport>(file, BenchReport.JsonOptions);
            }

            return new Outcome(process.ExitCode, await stdout, await stderr, report);
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill(entireProcessTree: true);
            }
        }
    }

    /// <summary>Waits (up to 60 s: the client's start on a loaded machine) until a connection to <paramref name="port"/> is established, and a second more.</summary>
    public static async Task WaitForClientsAsync(int port)
    {
        var local = $":{port:X4} ";
        for (var waited = 0; waited < 600; waited++)
        {
            if ((await File.ReadAllLinesAsync("/proc/net/tcp")).Any(line => line.Contains(local, StringComparison.Ordinal) && EstablishedRow().IsMatch(line)))
            {
                await Task.Delay(TimeSpan.FromSeconds(1));
                return;
            }

            await Task.Delay(100);
        }
    }

    /// <summary>The run's verdict when the measured server process <paramref name="processId"/> exited part-way: none, in the summary and the row.</summary>
    public static void AssertServerExitedDuringTheRun(Outcome run, int processId)
    {
        Assert.Contains($"verdict    no verdict: the server process ({processId}) exited during the run\n", run.Stdout, StringComparison.Ordinal);
        Assert.Equal("undetermined", run.Row.Blame!.Verdict);
        Assert.True(run.Row.Blame.ServerExited);
    }

    // sl, local, remote, then st 01: ESTABLISHED.
    [GeneratedRegex(@"^\s*\d+: \S+ \S+ 01 ")]
    private static partial Regex EstablishedRow();
}
