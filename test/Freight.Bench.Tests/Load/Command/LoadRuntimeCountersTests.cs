using System.Globalization;
using System.Net.Http.Json;
using System.Text.Json;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// <c>freight load --server-pid</c>'s runtime figures against the server's own word: <c>freight serve</c>'s
/// <c>/lab/metrics</c> (GC.GetTotalAllocatedBytes and GC.CollectionCount) read just before and just after the run.
/// </summary>
public sealed class LoadRuntimeCountersTests
{
    [Fact]
    public async Task Get_ServerPid_AllocationAndCollectionsAreTheServersOwnOverTheWholeRun()
    {
        await using var server = await ChildServer.StartAsync();
        using var http = new HttpClient();
        var before = await MetricsAsync(http, server);

        var run = await LoadCli.RunAsync(server.Url("/lab/ping").ToString(), "-c", "4", "-d", "4", "--server-pid",
            server.ServerProcessId.ToString(CultureInfo.InvariantCulture), "--no-progress");
        var after = await MetricsAsync(http, server);

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        var counters = run.Row.Counters!;

        // The truth brackets the run (it also holds the two /lab/metrics requests and the idle moments around the run);
        // the counters' first poll follows the session's start, before the run, and their last closes the second the run
        // ended in, so they hold all of the run and nearly none of the rest: within 10 % of the truth, not the old ~half.
        var elapsed = run.Row.Transfers /  run.Row.RequestsPerSecond!.Median;
        var reported = counters.AllocationBytesPerSecond!.Value * elapsed;
        var truth = after.AllocatedBytes - before.AllocatedBytes;
        Assert.InRange(reported, 0.9 * truth, 1.02 * truth);

        // Every collection of the run happened while the load ran: the counts are the server's own, to one a generation.
        Assert.InRange(counters.Gen0Collections!.Value, after.Gen0Collections - before.Gen0Collections - 1, after.Gen0Collections - before.Gen0Collections);
        Assert.InRange(counters.Gen1Collections!.Value, after.Gen1Collections - before.Gen1Collections - 1, after.Gen1Collections - before.Gen1Collections);
        Assert.DoesNotContain("sampled)", run.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_ServerPid_RunShorterThanAPoll_HasTheFiguresOfThePollAfterIt()
    {
        await using var server = await ChildServer.StartAsync();

        // 20 requests: over long before the first poll, a second after the session's start.
        var run = await LoadCli.RunAsync(server.Url("/lab/ping").ToString(), "-c", "2", "-n", "20", "--server-pid",
            server.ServerProcessId.ToString(CultureInfo.InvariantCulture), "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal("eventpipe", run.Row.Blame!.RuntimeCounters);
        Assert.DoesNotContain("runtime    none", run.Stdout, StringComparison.Ordinal);
        Assert.Matches(@"\nruntime    gen0/1/2 \d+/\d+/\d+, .*alloc [0-9,.]+ MiB/s, thread pool ", run.Stdout);
        Assert.True(run.Row.Counters!.AllocationBytesPerSecond > 0, run.Stdout);
    }

    private static async Task<Snapshot> MetricsAsync(HttpClient http, ChildServer server) =>
        (await http.GetFromJsonAsync<Snapshot>(server.Url("/lab/metrics"), new JsonSerializerOptions(JsonSerializerDefaults.Web)))!;

    private sealed record Snapshot(long AllocatedBytes, int Gen0Collections, int Gen1Collections, int Gen2Collections);
}
