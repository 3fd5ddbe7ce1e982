using System.Net;
using System.Net.Http.Headers;
using System.Net.Sockets;
using System.Text;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Transport;

/// <summary>A server with an h2c:// address too: cleartext HTTP/2 with prior knowledge on a port of its own.</summary>
public sealed class H2cFilesServer() : FilesServer("--urls", "http://127.0.0.1:0;https://127.0.0.1:0;h2c://127.0.0.1:0")
{
    /// <summary>The h2c listener as the http:// address a client sends HTTP/2 to.</summary>
    public Uri H2cAddress => new UriBuilder(new Uri(Server.Urls.Single(url => url.StartsWith("h2c://", StringComparison.Ordinal)))) { Scheme = Uri.UriSchemeHttp }.Uri;
}

/// <summary>h2c (RFC 9113 §3.3): the files API over cleartext HTTP/2, and nothing but HTTP/2 on that port.</summary>
public sealed class H2cTests(H2cFilesServer server) : IClassFixture<H2cFilesServer>
{
    [Fact]
    public void Urls_H2cAddress_IsListedAsH2cBesideHttpAndHttps()
    {
        Assert.Equal(["h2c", "http", "https"], server.Server.Urls.Select(url => new Uri(url).Scheme).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task H2c_PriorKnowledgePutThenGetAndRange_ReturnTheExactBytes()
    {
        var key = $"{FilesApi.NewRoot()}/h2c.bin";
        var content = FilesApi.Content(2 * 1024 * 1024 + 7, seed: 24);

        using var put = Request(HttpMethod.Put, "/files/" + key);
        put.Content = new ByteArrayContent(content);
        put.Content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        using var created = await server.Client.SendAsync(put);
        using var get = Request(HttpMethod.Get, "/files/" + key);
        using var response = await server.Client.SendAsync(get);
        using var range = Request(HttpMethod.Get, "/files/" + key);
        range.Headers.Range = new RangeHeaderValue(100, 199);
        using var partial = await server.Client.SendAsync(range);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal(HttpVersion.Version20, created.Version);
        Assert.Equal(FilesApi.ETag(content), created.Headers.ETag?.ToString());
        Assert.Equal(HttpVersion.Version20, response.Version);
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
        Assert.Equal(HttpStatusCode.PartialContent, partial.StatusCode);
        Assert.Equal(content.AsSpan(100, 100).ToArray(), await partial.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task H2c_Http11Request_Gets400AndNoBody()
    {
        using var tcp = new TcpClient();
        await tcp.ConnectAsync(server.H2cAddress.Host, server.H2cAddress.Port);
        var stream = tcp.GetStream();
        await stream.WriteAsync(Encoding.ASCII.GetBytes("GET /lab/download/bytes?size=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"));

        // Kestrel recognises HTTP/1.x on an HTTP/2-only endpoint, answers 400 and closes: the lab's byte never comes.
        using var answer = new MemoryStream();
        await stream.CopyToAsync(answer);
        var text = Encoding.ASCII.GetString(answer.ToArray());
        Assert.StartsWith("HTTP/1.1 400 ", text, StringComparison.Ordinal);
        Assert.DoesNotContain("200", text.Split("\r\n")[0], StringComparison.Ordinal);
    }

    private HttpRequestMessage Request(HttpMethod method, string pathAndQuery) => new(method, new Uri(server.H2cAddress, pathAndQuery))
    {
        Version = HttpVersion.Version20,
        VersionPolicy = HttpVersionPolicy.RequestVersionExact,
    };
}
