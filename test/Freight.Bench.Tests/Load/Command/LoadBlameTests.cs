using System.Globalization;
using Freight.Bench.Load.Blame;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>The starving endpoint starves this whole process's thread pool: nothing else may run beside it.</summary>
[CollectionDefinition(nameof(LoadBlameCollection), DisableParallelization = true)]
public sealed class LoadBlameCollection;

/// <summary>
/// Blame against the test app in this process (<c>--server-pid</c> = this process, a .NET one, so its runtime
/// counters come through EventPipe). Each verdict is asserted to follow from the measured inputs by the
/// documented rule; where the machine decides the inputs (a client's whole core), see the comments.
/// </summary>
[Collection(nameof(LoadBlameCollection))]
public sealed class LoadBlameTests
{
    private static readonly string ThisProcess = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);

    [Fact]
    public async Task SyncReadsOnTheThreadPool_ServerPid_ServerBoundFromTheQueue()
    {
        await using var server = await LoadTargetServer.StartAsync();

        // 16 uploads at once, each holding a pool thread for its whole body: more than the pool's threads.
        var run = await LoadCli.RunAsync(server.Url("/slow").ToString(), "-X", "PUT", "--size", "4MiB", "-c", "16", "-d", "4",
            "--timeout", "4", "--server-pid", ThisProcess, "--no-progress");

        var row = run.Row;
        Assert.Equal("eventpipe", row.Blame!.RuntimeCounters);
        Assert.NotNull(row.Counters!.ThreadPoolThreads);
        Assert.NotNull(row.Blame.ThreadPoolQueueLengths);
        Assert.Equal("server-bound", row.Blame.Verdict);
        Assert.Equal(row.Blame.Verdict, SaturationRule.Judge(Inputs(row.Blame)).Id);
    }

    [Fact]
    public async Task FastEndpointClientHashesSha256_ServerPid_ClientBound()
    {
        await using var server = await LoadTargetServer.StartAsync();

        // 8 MiB bodies from memory (Kestrel's cheapest path), each hashed by the client (SHA-256 and XXH3).
        var run = await LoadCli.RunAsync(server.Url("/memory").ToString(), "-c", "4", "-d", "3", "--expect-sha256", LoadTargetServer.MemoryBodySha256,
            "--server-pid", ThisProcess, "--no-progress");

        var row = run.Row;
        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.True(row.Blame!.ClientCpuCores > 0);
        Assert.NotNull(row.Blame.ServerCpuCores);
        Assert.Equal(row.Blame.Verdict, SaturationRule.Judge(Inputs(row.Blame)).Id);
        Assert.Equal("client-bound", row.Blame.Verdict);
    }

    private static SaturationInputs Inputs(Freight.Bench.Reports.LoadBlame blame) =>
        new(blame.ClientCpuCores, blame.ServerCpuCores, blame.ServerAllowedCpus, blame.ThreadPoolQueueLengths);
}
