using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using Freight.Downloads;
using Freight.Lab.Payload;
using Freight.Transport;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Logging;

namespace Freight.Tests.Downloads;

/// <summary>
/// A user's app that puts <see cref="SendFileConnections"/> on a TLS listener, which its docs say not to do, before or
/// after the TLS middleware (Kestrel's <c>UseHttps</c> or Freight's <c>UseFreightHttps</c>), through a real Kestrel on
/// 127.0.0.1:0. sendfile(2) would put the file's plaintext on the socket, under the TLS stream: every such download
/// must take the copying path and reach an HTTPS client as the exact, encrypted bytes.
/// </summary>
public sealed class SendFileOnTlsListenerTests : IAsyncLifetime
{
    // Over SendFileAboveBytes and over one 1 MiB sendfile chunk, with a ragged end.
    private const int FileLength = 3 * 1024 * 1024 + 4321;

    private readonly TempDirectory _dir = new();
    private readonly FileCache _cache = new(new FileCacheOptions());
    private readonly X509Certificate2 _certificate = CreateCertificate();
    private string _path = "";

    public static TheoryData<string, bool> Listeners => new()
    {
        { "UseHttps", true },
        { "UseHttps", false },
        { "UseFreightHttps", true },
        { "UseFreightHttps", false },
    };

    public Task InitializeAsync()
    {
        _path = _dir.Combine("large.bin");
        DeterministicPayload.WriteFile(_path, FileLength, seed: 31);
        return Task.CompletedTask;
    }

    public Task DisposeAsync()
    {
        _certificate.Dispose();
        _dir.Dispose();
        return Task.CompletedTask;
    }

    [Theory]
    [MemberData(nameof(Listeners))]
    public async Task Get_OnATlsListenerWithSendFileConnections_ReturnsTheExactBytes(string tls, bool sendFileOutside)
    {
        await using var app = await StartAsync(listen =>
        {
            if (sendFileOutside)
            {
                listen.Use(SendFileConnections.Use);
            }

            if (tls == "UseHttps")
            {
                listen.UseHttps(_certificate);
            }
            else
            {
                listen.UseFreightHttps(_certificate);
            }

            if (!sendFileOutside)
            {
                listen.Use(SendFileConnections.Use);
            }
        });
        using var handler = new SocketsHttpHandler();
        handler.SslOptions.RemoteCertificateValidationCallback = (_, certificate, _, _) => certificate?.GetCertHashString() == _certificate.GetCertHashString();
        using var client = new HttpClient(handler) { BaseAddress = new Uri(app.Urls.First()) };
        var expected = DeterministicPayload.Create(FileLength, seed: 31);

        // Twice on one connection: the connection survives the first body, and a second answer is whole too.
        for (var i = 0; i < 2; i++)
        {
            using var response = await client.GetAsync("/large.bin");
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(SHA256.HashData(expected), SHA256.HashData(await response.Content.ReadAsByteArrayAsync()));
        }

        using var range = new HttpRequestMessage(HttpMethod.Get, "/large.bin");
        range.Headers.Range = new System.Net.Http.Headers.RangeHeaderValue(100_000, 2_200_000);
        using var partial = await client.SendAsync(range);
        Assert.Equal(HttpStatusCode.PartialContent, partial.StatusCode);
        Assert.Equal(expected.AsSpan(100_000, 2_100_001).ToArray(), await partial.Content.ReadAsByteArrayAsync());
    }

    private async Task<WebApplication> StartAsync(Action<ListenOptions> configure)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0, configure));
        var app = builder.Build();
        app.MapGet("/large.bin", async context => await FileResponder.TrySendAsync(context, _cache, _path));
        await app.StartAsync();
        return app;
    }

    private static X509Certificate2 CreateCertificate()
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=localhost", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        var now = DateTimeOffset.UtcNow;
        using var certificate = request.CreateSelfSigned(now.AddMinutes(-5), now.AddDays(1));
        // Exported and loaded again: a certificate straight from CreateSelfSigned has an ephemeral key SslStream cannot use on Linux.
        return X509CertificateLoader.LoadPkcs12(certificate.Export(X509ContentType.Pkcs12), null);
    }
}
