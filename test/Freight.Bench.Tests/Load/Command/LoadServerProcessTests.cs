using System.Diagnostics;
using System.Globalization;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// Which process <c>freight load</c> measures as the server, and what its verdict says of the machine and of a server
/// that went away: real <c>freight serve</c> children on 127.0.0.1 (one under a shell, as <c>dotnet run</c> starts an
/// app), real runs of a few seconds. Serial with the other blame tests: they measure CPU.
/// </summary>
[Collection(nameof(LoadBlameCollection))]
public sealed class LoadServerProcessTests
{
    [Fact]
    public async Task ServerPidOfTheParentOfTheServer_MeasuresTheChildThatListensAndSaysSo()
    {
        await using var server = await ChildServer.StartUnderShellAsync();

        var run = await LoadCli.RunAsync(server.Url("/healthz").ToString(), "-c", "2", "-d", "1.5", "--server-pid", Id(server.ProcessId), "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal(
            $"server: PID {server.ServerProcessId} (dotnet Freight.Cli.dll), a child of {server.ProcessId}, listens on :{server.Address.Port}",
            run.Stdout.Split('\n')[0]);
        Assert.Equal(server.ServerProcessId, run.Row.Blame!.ServerProcessId);
        Assert.Equal("eventpipe", run.Row.Blame.RuntimeCounters);
    }

    [Fact]
    public async Task ServerPidOfAProcessThatDoesNotListen_RefusedExit2NamingTheOneThatDoes()
    {
        await using var server = await ChildServer.StartAsync();
        using var bystander = Process.Start(new ProcessStartInfo("sleep", "30") { UseShellExecute = false })!;
        try
        {
            var run = await LoadCli.RunAsync(server.Url("/healthz").ToString(), "-d", "1", "--server-pid", Id(bystander.Id), "--no-progress");

            Assert.Equal(2, run.Exit);
            Assert.Equal("", run.Stdout);
            Assert.Equal(
                $"error: --server-pid {bystander.Id} (sleep) does not listen on :{server.Address.Port}; PID {server.ServerProcessId} (dotnet Freight.Cli.dll) does: name it with --server-pid.",
                run.Stderr.TrimEnd('\n'));
        }
        finally
        {
            bystander.Kill();
        }
    }

    /// <summary>A server in a container listens in its own network namespace, behind a proxy or NAT: not refused, said.</summary>
    [Fact]
    public async Task ServerPidInAnotherNetworkNamespace_MeasuredWithALineSayingItWasNotChecked()
    {
        await using var server = await ChildServer.StartAsync();
        using var contained = Process.Start(new ProcessStartInfo("unshare", ["--user", "--map-root-user", "--net", "sleep", "30"]) { UseShellExecute = false })!;
        try
        {
            // unshare execs sleep once the namespaces are made (a user namespace too: no root needed): wait for that.
            for (var waited = 0; waited < 100 && File.ReadAllText($"/proc/{contained.Id}/comm").TrimEnd() != "sleep"; waited++)
            {
                await Task.Delay(50);
            }

            var run = await LoadCli.RunAsync(server.Url("/healthz").ToString(), "-c", "1", "-d", "1", "--server-pid", Id(contained.Id), "--no-progress");

            Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
            Assert.Equal(
                $"server: PID {contained.Id} (sleep) runs in another network namespace (a container?): not checked that it listens on :{server.Address.Port}",
                run.Stdout.Split('\n')[0]);
        }
        finally
        {
            contained.Kill();
        }
    }

    [Fact]
    public async Task ServerProcessNamingTwoServers_MeasuresTheOneOnTheUrlsPort()
    {
        await using var first = await ChildServer.StartAsync();
        await using var second = await ChildServer.StartAsync();

        var run = await LoadCli.RunAsync(second.Url("/healthz").ToString(), "-c", "2", "-d", "1.5", "--server-process", "Freight.Cli", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal(second.ServerProcessId, run.Row.Blame!.ServerProcessId);
    }

    [Fact]
    public async Task ServerKilledDuringTheRun_NoVerdictSaysItExited()
    {
        await using var server = await ChildServer.StartAsync();

        var running = LoadCli.RunAsync(server.Url("/healthz").ToString(), "-c", "2", "-d", "4", "--server-pid", Id(server.ServerProcessId), "--no-progress");
        await LoadCli.WaitForClientsAsync(server.Address.Port);
        await server.KillServerAsync();
        var run = await running;

        Assert.Equal(1, run.Exit);
        LoadCli.AssertServerExitedDuringTheRun(run, server.ServerProcessId);
    }

    /// <summary>
    /// Two shells spinning on the 2 cores beside the run: the verdict names what the other processes took and calls
    /// itself weak, and both sides' CPU reads as a share of all their cores ("42 % of 200 %"), not "of a core".
    /// </summary>
    [Fact]
    public async Task MachineBusyWithOtherProcesses_VerdictSaysOthersUsedAndIsWeak()
    {
        await using var server = await ChildServer.StartAsync();
        var spinners = Enumerable.Range(0, Environment.ProcessorCount)
            .Select(_ => Process.Start(new ProcessStartInfo("sh", ["-c", "while :; do :; done"]) { UseShellExecute = false })!).ToList();
        try
        {
            var run = await LoadCli.RunAsync(server.Url("/healthz").ToString(), "-c", "2", "-d", "2", "--server-pid", Id(server.ServerProcessId), "--no-progress");

            Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
            var cores = Environment.ProcessorCount * 100;
            var stdout = run.Stdout.Split('\n');
            Assert.Matches(Share(cores), Assert.Single(stdout, line => line.StartsWith("client ", StringComparison.Ordinal)));
            Assert.Matches(Share(cores), Assert.Single(stdout, line => line.StartsWith("server ", StringComparison.Ordinal)));
            var verdict = Assert.Single(stdout, line => line.StartsWith("verdict ", StringComparison.Ordinal));
            Assert.Matches($"; others used [0-9]+ % of {cores} %: the verdict is weak$", verdict);
            Assert.True(run.Row.Blame!.OthersCpuCores > 0.1 * Environment.ProcessorCount, run.Stdout);
            Assert.Equal(Environment.ProcessorCount, run.Row.Blame.MachineCpus);
        }
        finally
        {
            foreach (var spinner in spinners)
            {
                spinner.Kill();
                spinner.Dispose();
            }
        }
    }

    private static string Share(int cores) => $", [0-9]+ % of {cores} %";

    private static string Id(int processId) => processId.ToString(CultureInfo.InvariantCulture);
}
