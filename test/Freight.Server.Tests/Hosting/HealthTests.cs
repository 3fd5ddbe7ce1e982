using System.Net;
using Freight.Server.Tests.Files;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// <c>GET /healthz</c>, what a load balancer's or an orchestrator's probe asks: open with tokens set (a probe carries none),
/// Healthy while the store's directories are there with room, Degraded under tus's free-space reserve (tus refuses new
/// uploads then), Unhealthy (503) when the files directory is gone.
/// </summary>
public sealed class HealthTests(TokenFilesServer guarded) : IClassFixture<TokenFilesServer>
{
    [Fact]
    public async Task Healthz_GuardedServerWithoutAToken_200Healthy()
    {
        using var response = await guarded.Client.GetAsync(new Uri(guarded.HttpAddress, "/healthz"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/plain", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal("Healthy", await response.Content.ReadAsStringAsync());
    }

    public sealed class NoRoomServer() : FilesServer("--Freight:Tus:MinFreeBytes", long.MaxValue.ToString(System.Globalization.CultureInfo.InvariantCulture));

    public sealed class DoomedServer() : FilesServer();
}

/// <summary>A tus reserve no volume has: the server is degraded, and still answers 200 (it serves; it takes fewer uploads).</summary>
public sealed class HealthDegradedTests(HealthTests.NoRoomServer server) : IClassFixture<HealthTests.NoRoomServer>
{
    [Fact]
    public async Task Healthz_FreeSpaceUnderTusReserve_200Degraded()
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/healthz"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("Degraded", await response.Content.ReadAsStringAsync());
    }
}

/// <summary>The files directory removed behind the server's back: 503 Unhealthy, so a balancer takes it out.</summary>
public sealed class HealthUnhealthyTests(HealthTests.DoomedServer server) : IClassFixture<HealthTests.DoomedServer>
{
    [Fact]
    public async Task Healthz_FilesDirectoryGone_503Unhealthy()
    {
        Directory.Delete(server.FilesDirectory!, recursive: true);

        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/healthz"));

        Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
        Assert.Equal("Unhealthy", await response.Content.ReadAsStringAsync());
    }
}
