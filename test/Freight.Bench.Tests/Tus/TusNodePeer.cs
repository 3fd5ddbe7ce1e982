using Freight.Bench.Peers;

namespace Freight.Bench.Tests.Tus;

/// <summary>
/// The repository's real tus peer (peers/tus-node), its packages installed by <c>npm ci</c> when missing: one
/// located installation per test class, and helpers to start servers with fresh store and work directories.
/// The tests fail, never skip, when Node is missing: the project's machines have Node 20.19+ and npm.
/// </summary>
public sealed class TusNodePeer : IAsyncLifetime
{
    private readonly string _root = Directory.CreateTempSubdirectory("freight-tus-node-test-").FullName;

    public TusNodeInstallation Installation { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        var (installation, unavailable) = await TusNode.LocateAsync(null, CancellationToken.None);
        Assert.True(installation is not null, $"The tus peer cannot run here: {unavailable}. Install Node 20.19 or later.");
        await TusNode.EnsurePackagesAsync(installation, CancellationToken.None);
        Installation = installation;
    }

    /// <summary>A new server with its own store and work directories under this fixture's temp directory.</summary>
    public Task<TusNodeServer> StartAsync()
    {
        var run = Directory.CreateDirectory(Path.Combine(_root, Guid.NewGuid().ToString("N"))).FullName;
        return TusNode.StartAsync(Installation, new TusNodeOptions { StoreDirectory = Path.Combine(run, "store"), WorkDirectory = Path.Combine(run, "work") }, CancellationToken.None);
    }

    /// <summary>A scratch directory for a fake package.</summary>
    public string NewDirectory() => Directory.CreateDirectory(Path.Combine(_root, Guid.NewGuid().ToString("N"))).FullName;

    /// <summary>
    /// A package in <paramref name="directory"/> that needs no install (its manifests and the stamp of their install
    /// are in place) with the given server.mjs.
    /// </summary>
    public static void WriteFakePackage(string directory, string script)
    {
        File.WriteAllText(Path.Combine(directory, "server.mjs"), script);
        File.WriteAllText(Path.Combine(directory, "package.json"), "{}");
        File.WriteAllText(Path.Combine(directory, "package-lock.json"), "{}");
        Directory.CreateDirectory(Path.Combine(directory, "node_modules"));
        File.WriteAllText(NodePackages.StampPath(directory), NodePackages.ManifestHash(directory));
    }

    public Task DisposeAsync()
    {
        Directory.Delete(_root, recursive: true);
        return Task.CompletedTask;
    }
}
