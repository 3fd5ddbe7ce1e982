namespace Freight.Bench.Measure;

/// <summary>The embedded servers of one bench run, stopped together.</summary>
internal sealed class ServerProcessSet : IAsyncDisposable
{
    private readonly List<ServerProcess> _servers = [];

    public void Add(ServerProcess server) => _servers.Add(server);

    public async ValueTask DisposeAsync()
    {
        foreach (var server in _servers)
        {
            await server.DisposeAsync();
        }
    }
}
