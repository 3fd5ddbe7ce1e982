using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Cryptography;
using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hosting;

/// <summary>HTTPS with the in-memory certificate: pinnable by its printed fingerprint, HTTP/2 by ALPN.</summary>
public sealed class HttpsTests(LabServer server) : IClassFixture<LabServer>
{
    [Fact]
    public async Task Https_Handshake_PresentsTheCertificateWhoseFingerprintIsPrinted()
    {
        string? presented = null;
        using var client = ServerHarness.CreatePinnedClient(SelfSignedCertificate.Fingerprint(server.Server.Certificate!), certificate => presented = certificate);

        using var response = await client.GetAsync(new Uri(server.HttpsAddress, "/lab/download/bytes?size=1"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(server.CertificateFingerprint, presented);
    }

    [Fact]
    public async Task Https_Http2Request_NegotiatesHttp2()
    {
        using var request = server.Request(HttpMethod.Get, Protocol.Http2, "/lab/download/bytes?size=1");

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(HttpVersion.Version20, response.Version);
    }

    [Fact]
    public async Task Https_Http11Request_StaysOnHttp11()
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(server.HttpsAddress, "/lab/download/bytes?size=1"))
        {
            Version = HttpVersion.Version11,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(HttpVersion.Version11, response.Version);
    }

    [Theory]
    [InlineData("h2", "h2")]
    [InlineData("http/1.1", "http/1.1")]
    public async Task Https_AlpnOffer_SelectsTheOfferedProtocol(string offered, string selected)
    {
        using var tcp = new TcpClient();
        await tcp.ConnectAsync(server.HttpsAddress.Host, server.HttpsAddress.Port);
        await using var tls = new SslStream(tcp.GetStream());
        SslPolicyErrors errors = default;

        await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            ApplicationProtocols = [new SslApplicationProtocol(offered)],
            RemoteCertificateValidationCallback = (_, _, _, policyErrors) =>
            {
                errors = policyErrors;
                return true;
            },
        });

        Assert.Equal(selected, tls.NegotiatedApplicationProtocol.ToString());
        Assert.Equal(server.CertificateFingerprint, Convert.ToHexStringLower(tls.RemoteCertificate!.GetCertHash(HashAlgorithmName.SHA256)));
        // Self-signed, so the chain is untrusted; but the name matches (the certificate names localhost).
        Assert.False(errors.HasFlag(SslPolicyErrors.RemoteCertificateNameMismatch));
    }

    [Fact]
    public async Task Https_ClientPinningAnotherCertificate_FailsTheHandshake()
    {
        using var client = ServerHarness.CreatePinnedClient(new string('0', 64));

        await Assert.ThrowsAsync<HttpRequestException>(() => client.GetAsync(new Uri(server.HttpsAddress, "/lab/download/bytes?size=1")));
    }
}
