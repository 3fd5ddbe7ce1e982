namespace Freight.Bench.Measure;

/// <summary>The child processes of one bench run, stopped together.</summary>
internal sealed class FreightProcessSet : IAsyncDisposable
{
    private readonly List<FreightProcess> _servers = [];

    public void Add(FreightProcess server) => _servers.Add(server);

    public async ValueTask DisposeAsync()
    {
        foreach (var server in _servers)
        {
            await server.DisposeAsync();
        }
    }
}
