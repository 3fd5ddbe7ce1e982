using System.Net;
using System.Text.Json;
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

    public sealed class MovedServer() : FilesServer();
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

/// <summary>
/// The files directory moved away under the running server, which holds it open: a PUT is refused (503, the storage
/// cannot be written) rather than stored where no one finds it, and works again once the directory is back. A new
/// directory made in its place is not taken up (it is not the store's, whose files are elsewhere): refused, and
/// Unhealthy, until serve restarts.
/// </summary>
public sealed class HealthMovedDirectoryTests(HealthTests.MovedServer server) : IClassFixture<HealthTests.MovedServer>
{
    [Fact]
    public async Task FilesDirectoryMovedAway_Put503NothingLandsInTheMovedDirectory_MovedBackStoresAgain()
    {
        var files = server.FilesDirectory!;
        var moved = files + ".gone";
        await FilesApi.CreateAsync(server, "before.bin", FilesApi.Content(100));

        Directory.Move(files, moved);
        var left = Names(moved);
        using (var put = await FilesApi.PutAsync(server, "f.bin", FilesApi.Content(4096)))
        {
            await AssertUnwritableAsync(put);
        }

        Assert.Contains("before.bin", left);
        Assert.Equal(left, Names(moved));
        Assert.False(Directory.Exists(files));

        Directory.Move(moved, files);
        Assert.Equal(HttpStatusCode.OK, await HealthStatusAsync());
        await FilesApi.CreateAsync(server, "f.bin", FilesApi.Content(4096));
        Assert.Equal(FilesApi.Content(4096), await File.ReadAllBytesAsync(server.DiskPath("f.bin")));
    }

    [Fact]
    public async Task FilesDirectoryReplacedByANewOne_Put503AndUnhealthy_NothingStoredInEither()
    {
        var files = server.FilesDirectory!;
        var moved = files + ".replaced";
        Directory.CreateDirectory(files);
        Directory.Move(files, moved);
        Directory.CreateDirectory(files);
        try
        {
            using (var put = await FilesApi.PutAsync(server, "g.bin", FilesApi.Content(4096)))
            {
                await AssertUnwritableAsync(put);
            }

            Assert.Equal(HttpStatusCode.ServiceUnavailable, await HealthStatusAsync());
            Assert.Empty(Names(files));
            Assert.DoesNotContain("g.bin", Names(moved));
        }
        finally
        {
            Directory.Delete(files, recursive: true);
            Directory.Move(moved, files);
        }
    }

    private static string[] Names(string directory) =>
        [.. Directory.GetFileSystemEntries(directory, "*", SearchOption.AllDirectories).Select(entry => Path.GetRelativePath(directory, entry)).Order(StringComparer.Ordinal)];

    private async Task<HttpStatusCode> HealthStatusAsync()
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/healthz"));
        return response.StatusCode;
    }

    private static async Task AssertUnwritableAsync(HttpResponseMessage response)
    {
        await Infrastructure.ProblemAssert.IsProblemAsync(response, HttpStatusCode.ServiceUnavailable);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal("Storage cannot be written", problem.RootElement.GetProperty("title").GetString());
    }
}
