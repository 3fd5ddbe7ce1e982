using System.Diagnostics;
using System.Globalization;
using Freight.Bench.Peers;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// A Node cluster on 127.0.0.1 (Fixtures/node-cluster.js): a primary that accepts and two workers it hands the
/// connections to. Disposing kills all three and waits until they are gone.
/// </summary>
internal sealed class NodeCluster : IAsyncDisposable
{
    /// <summary>node missing fails the test, as it does the tus-js-client and report render tests.</summary>
    public const string Missing = "the Node cluster test needs Node.js on PATH (the machine's own; scripts/install-peers.sh does not install it).";

    private readonly Process _primary;

    private NodeCluster(Process primary, Uri address, IReadOnlyList<int> workers)
    {
        _primary = primary;
        Address = address;
        WorkerProcessIds = workers;
    }

    public Uri Address { get; }

    public int PrimaryProcessId => _primary.Id;

    /// <summary>The workers, in the order forked.</summary>
    public IReadOnlyList<int> WorkerProcessIds { get; }

    public static async Task<NodeCluster> StartAsync()
    {
        var node = NodePackages.FindNode();
        Assert.True(node is not null, Missing);
        var start = new ProcessStartInfo(node, [Path.Combine(AppContext.BaseDirectory, "Load", "Command", "Fixtures", "node-cluster.js")])
        {
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        var primary = Process.Start(start)!;
        using var ready = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var line = await primary.StandardOutput.ReadLineAsync(ready.Token);
        var fields = line?.Split(' ') ?? [];
        if (fields is not ["listening", var port, _, _])
        {
            primary.Kill(entireProcessTree: true);
            throw new InvalidOperationException($"the Node cluster did not start: '{line}'");
        }

        return new NodeCluster(primary, new Uri($"http://127.0.0.1:{port}/"), [.. fields[2..].Select(pid => int.Parse(pid, CultureInfo.InvariantCulture))]);
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var worker in WorkerProcessIds)
        {
            try
            {
                using var process = Process.GetProcessById(worker);
                process.Kill();
                await process.WaitForExitAsync();
            }
            catch (ArgumentException)
            {
                // Gone already.
            }
        }

        _primary.Kill(entireProcessTree: true);
        await _primary.WaitForExitAsync();
        _primary.Dispose();
    }
}
