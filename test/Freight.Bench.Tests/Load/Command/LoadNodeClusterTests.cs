using System.Globalization;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// <c>freight load --server-pid</c> against a Node cluster (<see cref="NodeCluster"/>): its primary listens and accepts,
/// its workers serve the connections it hands them and hold no listening socket. Measured as the primary alone, the
/// server read the process that does almost nothing; the workers are found by the connections they hold on the port.
/// </summary>
public sealed class LoadNodeClusterTests
{
    [Fact]
    public async Task NodeCluster_ServerPidOfThePrimary_MeasuresTheWorkersHoldingItsConnections()
    {
        await using var cluster = await NodeCluster.StartAsync();
        var (primary, workers, port) = (cluster.PrimaryProcessId, cluster.WorkerProcessIds, cluster.Address.Port);

        // Four connections, handed round-robin: two to each worker.
        var run = await LoadCli.RunAsync(cluster.Address.ToString(), "-c", "4", "-d", "3", "--expect-status", "200",
            "--server-pid", primary.ToString(CultureInfo.InvariantCulture), "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        var stdout = run.Stdout.Split('\n');
        Assert.Equal(
            $"server: PID {primary} (node) and its 2 workers ({workers.Min()}, {workers.Max()}), found holding connections on :{port} during the run, measured with it from the run's start",
            stdout[0]);
        var blame = run.Row.Blame!;
        Assert.Equal(primary, blame.ServerProcessId);
        Assert.Equal(workers.Order(), blame.ServerWorkerProcessIds);
        Assert.True(blame.ServerCpuCores > 0, run.Stdout);
        Assert.EndsWith(" (3 processes summed)", Assert.Single(stdout, line => line.StartsWith("server ", StringComparison.Ordinal)), StringComparison.Ordinal);
    }
}
