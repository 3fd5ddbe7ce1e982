using Freight.Bench.Peers;

namespace Freight.Bench.Tests.S3;

/// <summary>
/// The bench's real RGW peer (<see cref="Rgw.StartAsync"/>: scripts/install-rgw.sh, then scripts/rgw.sh start),
/// started once per test class and stopped when the class is done. It fails, never skips, when RGW cannot run:
/// the message is the scripts' own reason (not root, no apt-get, a daemon that would not come up).
/// </summary>
public sealed class RgwPeer : IAsyncLifetime
{
    public RgwServer Server { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        var (server, unavailable) = await Rgw.StartAsync(CancellationToken.None);
        Assert.True(server is not null, $"The RGW peer cannot run here: {unavailable}");
        Server = server;
    }

    public async Task DisposeAsync()
    {
        if (Server is not null)
        {
            await Server.DisposeAsync();
        }
    }
}
