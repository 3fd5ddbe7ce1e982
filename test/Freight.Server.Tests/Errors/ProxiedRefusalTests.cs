using System.Globalization;
using System.Net;
using Freight.Bench.Peers;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// A refusal through nginx streaming the body upstream (<c>proxy_request_buffering off</c>), as deploy/nginx/freight.conf
/// has a deployment in front of serve do: the client reads serve's problem, not nginx's 502. Serve closed the connection with the body unread,
/// the reset failed nginx's write of the body ("writev() failed (32: Broken pipe) while sending request to upstream"),
/// and nginx answered 502 for most PUTs over the limit. Fails, never skips, when nginx is missing, as the bench's peer
/// tests do: <c>./test.sh</c> installs it (scripts/install-peers.sh).
/// </summary>
public sealed class ProxiedRefusalTests(OneMiBLimitServer server) : IClassFixture<OneMiBLimitServer>, IDisposable
{
    private const int Attempts = 10;

    /// <summary>300 MB, as the report's PUT: far more than nginx and the kernels hold in flight when the answer comes.</summary>
    private const long BodyBytes = 300L * 1000 * 1000;

    private readonly string _directory = Directory.CreateTempSubdirectory("freight-proxied-refusal-").FullName;

    [Fact]
    public async Task Put_OverLimitThroughNginx_ClientReads413Problem()
    {
        await using var nginx = await ShippedNginxProxy.StartAsync(Path.Combine(_directory, "work"), server.HttpAddress);
        Assert.True(nginx is not null, ShippedNginxProxy.Missing);
        var address = nginx.BaseAddress;

        var statuses = new List<int>();
        for (var attempt = 0; attempt < Attempts; attempt++)
        {
            // As curl -T does: the body sent while the answer is read, and no more of it once the answer is in.
            var connection = await RawHttpConnection.OpenAsync(address);
            await connection.SendAsync(RawHttpConnection.Head("PUT", address, $"/files/proxied/{attempt}.bin",
                "Content-Length: " + BodyBytes.ToString(CultureInfo.InvariantCulture)));
            var sending = connection.SendZerosAsync(BodyBytes);
            var response = await connection.ReadResponseAsync();
            await connection.DisposeAsync();
            await sending;

            statuses.Add(response.StatusCode);
            if (response.StatusCode == (int)HttpStatusCode.RequestEntityTooLarge)
            {
                ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
            }
        }

        Assert.True(statuses.All(status => status == (int)HttpStatusCode.RequestEntityTooLarge), $"through nginx: {string.Join(' ', statuses)}; nginx's log: {await File.ReadAllTextAsync(nginx.ErrorLogPath)}");
        Assert.Empty(server.TempFiles());
        Assert.False(Directory.Exists(Path.Combine(server.DataDirectory, "files", "proxied")));
        await server.AssertServingAsync();
    }

    public void Dispose() => Directory.Delete(_directory, recursive: true);
}
