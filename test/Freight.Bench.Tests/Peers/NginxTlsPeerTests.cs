using System.Net;
using Freight.Bench.Load;
using Freight.Bench.Peers;
using Freight.Bench.Suites.Transfer;

namespace Freight.Bench.Tests.Peers;

/// <summary>
/// <c>peer/nginx-tls</c>: nginx over TLS on the certificate the bench wrote, reached only by a client pinning it,
/// serving the payload's exact bytes and storing an upload's. Fails, never skips, when nginx is missing.
/// </summary>
public sealed class NginxTlsPeerTests
{
    private const string Missing = "nginx is not installed: run scripts/install-peers.sh as root (./test.sh does).";

    private const long PayloadBytes = 1024 * 1024 + 3;

    [Fact]
    public async Task Download_PinnedClient_GetsThePayloadOverTls()
    {
        using var site = new PeerDirectory();
        using var payload = ClientPayload.Create(PayloadBytes, site.Path);
        await using var nginx = await StartAsync(payload, site);
        using var clients = new HttpClients([nginx.CertificateSha256]);

        using var response = await clients.Client.GetAsync(nginx.DownloadAddress);

        Assert.Equal(Uri.UriSchemeHttps, nginx.DownloadAddress.Scheme);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(payload.Bytes, await response.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [InlineData(TransferDirection.Download)]
    [InlineData(TransferDirection.Upload)]
    public async Task TransferClient_NginxTlsRow_VerifiesThePayload(TransferDirection direction)
    {
        using var site = new PeerDirectory();
        using var payload = ClientPayload.Create(PayloadBytes, site.Path);
        await using var nginx = await StartAsync(payload, site);
        using var clients = new HttpClients([nginx.CertificateSha256]);
        var transfers = new TransferClient(clients, new BenchTarget(null, nginx.Server.BaseAddress, nginx.CertificateSha256), payload, nginx);
        var scenario = new TransferScenario(TransferScenario.NginxTlsId, direction, Scheme: "https", Sink: direction == TransferDirection.Upload ? "file" : "memory", Server: TransferScenario.NginxTlsServer);

        var outcome = await transfers.RunAsync(scenario, CancellationToken.None);

        Assert.Equal(PayloadBytes, outcome.Bytes);
        if (direction == TransferDirection.Upload)
        {
            Assert.Equal(payload.Bytes, await File.ReadAllBytesAsync(Path.Combine(nginx.Server.PutDirectory!, "upload.bin")));
        }
    }

    [Fact]
    public async Task VerifyUpload_StoredFileDiffers_Throws()
    {
        using var site = new PeerDirectory();
        using var payload = ClientPayload.Create(PayloadBytes, site.Path);
        await using var nginx = await StartAsync(payload, site);
        await File.WriteAllBytesAsync(Path.Combine(nginx.Server.PutDirectory!, "upload.bin"), payload.Bytes.AsSpan(1).ToArray());

        await Assert.ThrowsAsync<VerificationException>(() => nginx.VerifyUploadAsync(payload, CancellationToken.None));
    }

    [Fact]
    public async Task Download_ClientPinningAnotherCertificate_FailsTheHandshake()
    {
        using var site = new PeerDirectory();
        using var payload = ClientPayload.Create(PayloadBytes, site.Path);
        await using var nginx = await StartAsync(payload, site);
        using var clients = new HttpClients([new string('0', 64)]);

        await Assert.ThrowsAsync<HttpRequestException>(() => clients.Client.GetAsync(nginx.DownloadAddress));
    }

    private static async Task<NginxTlsPeer> StartAsync(ClientPayload payload, PeerDirectory site)
    {
        var nginx = await NginxTlsPeer.StartAsync(payload, site.Work, CancellationToken.None);
        Assert.True(nginx is not null, Missing);
        return nginx;
    }
}
