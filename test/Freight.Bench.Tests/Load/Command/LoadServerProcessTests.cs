using System.Diagnostics;
using System.Globalization;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// Which process <c>freight load</c> measures as the server: real <c>freight serve</c> children on 127.0.0.1 (one under a shell, as <c>dotnet run</c> starts an
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

    [Fact]
    public async Task ServerProcessNamingTwoServers_MeasuresTheOneOnTheUrlsPort()
    {
        await using var first = await ChildServer.StartAsync();
        await using var second = await ChildServer.StartAsync();

        var run = await LoadCli.RunAsync(second.Url("/healthz").ToString(), "-c", "2", "-d", "1.5", "--server-process", "Freight.Cli", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal(second.ServerProcessId, run.Row.Blame!.ServerProcessId);
    }

    private static string Id(int processId) => processId.ToString(CultureInfo.InvariantCulture);
}
