using System.Net;
using System.Text;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Bearer tokens under attack (RFC 6750): near misses, a token in the query (§2.3 — not accepted here), two
/// Authorization fields, odd bytes, a read token trying every way to write — each a 401 problem+json with a
/// Bearer challenge and nothing stored or deleted, over HTTP/1.1 and HTTP/2.
/// </summary>
public sealed class HostileTokenTests(TokenFilesServer server) : IClassFixture<TokenFilesServer>
{
    private static readonly byte[] s_content = Content(2048, seed: 111);

    public static TheoryData<string, Protocol> RefusedAuthorizations()
    {
        var cases = new TheoryData<string, Protocol>();
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            foreach (var authorization in new[]
            {
                // Near misses of the write token "w0".
                "Bearer w",
                "Bearer w00",
                "Bearer W0",
                "Bearer w0 w0",
                "Bearerw0",
                "Basic " + Convert.ToBase64String(Encoding.ASCII.GetBytes("w0:w0")),
                "Bearer " + Convert.ToBase64String(Encoding.ASCII.GetBytes("w0")),
                "Bearer " + new string('w', 16 * 1024),
            })
            {
                cases.Add(authorization, protocol);
            }
        }

        return cases;
    }

    [Theory]
    [InlineData("/lab/ping", null)]
    [InlineData("/lab/ping", TokenFilesServer.ReadToken)]
    [InlineData("/lab/threads/sleep?ms=5000", null)]
    [InlineData("/lab/download/bytes?size=100000000", null)]
    [InlineData("/lab/static/stock/4096.bin", null)]
    public async Task Lab_WithoutTheWriteToken_Returns401Or403(string path, string? token)
    {
        // The lab writes files, streams gigabytes and holds threads as long as asked: on a server with tokens it takes
        // the write token, as a PUT does.
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(server.HttpAddress, path));
        if (token is not null)
        {
            request.Headers.Authorization = new System.Net.Http.Headers.AuthenticationHeaderValue("Bearer", token);
        }

        using var response = await server.Client.SendAsync(request);

        // A read token is valid, without the right: 403 (RFC 6750 §3.1).
        await ProblemAssert.IsProblemAsync(response, token is null ? HttpStatusCode.Unauthorized : HttpStatusCode.Forbidden);
        Assert.StartsWith("Bearer", response.Headers.WwwAuthenticate.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Lab_WithTheWriteToken_Answers()
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(server.HttpAddress, "/lab/ping"));
        request.Headers.Authorization = new System.Net.Http.Headers.AuthenticationHeaderValue("Bearer", TokenFilesServer.WriteToken);

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("pong", await response.Content.ReadAsStringAsync());
    }

    [Theory]
    [MemberData(nameof(RefusedAuthorizations))]
    public async Task Put_MalformedOrWrongAuthorization_Returns401AndStoresNothing(string authorization, Protocol protocol)
    {
        var key = $"{NewRoot()}/refused.bin";
        using var request = Put(server, key, s_content, protocol);
        if (!request.Headers.TryAddWithoutValidation("Authorization", authorization))
        {
            throw new InvalidOperationException(authorization);
        }

        using var response = await server.Client.SendAsync(request);

        await AssertUnauthorizedAsync(response);
        Assert.False(File.Exists(server.DiskPath(key)));
        await AssertAbsentWithTokenAsync(key);
    }

    /// <summary>Raw bytes HttpClient will not send: NUL and non-ASCII in the token, and two Authorization fields (one of them right).</summary>
    [Theory]
    [InlineData("Authorization: Bearer w0\u0001")]
    [InlineData("Authorization: Bearer w\u00f60")]
    [InlineData("Authorization: Bearer \u00f7\u00b0")]
    [InlineData("Authorization: Bearer r0\r\nAuthorization: Bearer w0")]
    [InlineData("Authorization: Bearer w0\r\nAuthorization: Bearer r0")]
    public async Task Put_OddAuthorizationBytes_AreNeverAWriteToken(string header)
    {
        var key = $"{NewRoot()}/raw.bin";
        // UTF-8 on the wire, byte for byte (RawHttpConnection.Head is ASCII).
        var head = Encoding.UTF8.GetBytes($"PUT /files/{key} HTTP/1.1\r\nHost: {server.HttpAddress.Authority}\r\nContent-Length: {Invariant(s_content.Length)}\r\n{header}\r\n\r\n");

        var response = await RawAsync(server.HttpAddress, head, s_content);

        Assert.True(response.StatusCode is 400 or 401, $"{response.StatusCode}: {response.BodyText}");
        Assert.False(File.Exists(server.DiskPath(key)));
        await AssertAbsentWithTokenAsync(key);
    }

    /// <summary>RFC 6750 §2.3's URI query token is not supported (tokens in URLs end up in logs): without a header the request is anonymous.</summary>
    [Theory]
    [InlineData("access_token")]
    [InlineData("token")]
    public async Task Requests_TokenInTheQuery_Return401(string parameter)
    {
        var key = $"{NewRoot()}/query.bin";
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            using var put = server.Request(HttpMethod.Put, protocol, $"/files/{key}?{parameter}={TokenFilesServer.WriteToken}");
            put.Content = new ByteArrayContent(s_content);
            using var written = await server.Client.SendAsync(put);
            await AssertUnauthorizedAsync(written);

            using var get = server.Request(HttpMethod.Get, protocol, $"/files?prefix={key[..key.IndexOf('/', StringComparison.Ordinal)]}&{parameter}={TokenFilesServer.ReadToken}");
            using var listed = await server.Client.SendAsync(get);
            await AssertUnauthorizedAsync(listed);
        }

        await AssertAbsentWithTokenAsync(key);
    }

    /// <summary>The read token tries every way to write — PUT, multipart POST, DELETE, and a POST dressed as another method — on both protocols.</summary>
    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task ReadToken_EveryWriteMethod_Returns403AndChangesNothing(Protocol protocol)
    {
        var root = NewRoot();
        var kept = $"{root}/kept.bin";
        using (var created = await PutAsync(server, kept, s_content, Bearer(TokenFilesServer.WriteToken)))
        {
            await AssertStatusAsync(created, HttpStatusCode.Created);
        }

        var before = server.DataDirectorySnapshot();
        using var put = Put(server, $"{root}/new.bin", s_content, protocol);
        using var post = server.Request(HttpMethod.Post, protocol, $"/files/{root}/up");
        var form = new MultipartFormDataContent { { new ByteArrayContent(s_content), "f", "posted.bin" } };
        post.Content = form;
        using var delete = server.Request(HttpMethod.Delete, protocol, "/files/" + kept);
        using var overridden = server.Request(HttpMethod.Post, protocol, "/files/" + kept);
        overridden.Headers.Add("X-HTTP-Method-Override", "DELETE");
        foreach (var request in new[] { put, post, delete, overridden })
        {
            request.Headers.Add(Bearer(TokenFilesServer.ReadToken).Name, Bearer(TokenFilesServer.ReadToken).Value);
            using var response = await server.Client.SendAsync(request);
            Assert.True(response.StatusCode is HttpStatusCode.Forbidden or HttpStatusCode.UnsupportedMediaType, $"{request.Method}: {(int)response.StatusCode}");
            if (response.StatusCode == HttpStatusCode.Forbidden)
            {
                await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Forbidden);
                Assert.Contains("error=\"insufficient_scope\"", Assert.Single(response.Headers.WwwAuthenticate).ToString(), StringComparison.Ordinal);
            }
        }

        Assert.Equal(before, server.DataDirectorySnapshot());
        Assert.Equal(s_content, await File.ReadAllBytesAsync(server.DiskPath(kept)));
    }

    private static (string Name, string Value) Bearer(string token) => ("Authorization", "Bearer " + token);

    private static async Task AssertUnauthorizedAsync(HttpResponseMessage response)
    {
        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Unauthorized);
        Assert.Equal("Bearer", Assert.Single(response.Headers.WwwAuthenticate).Scheme);
    }

    /// <summary>Not there for someone who may read: no listing entry and a 404 problem.</summary>
    private async Task AssertAbsentWithTokenAsync(string key)
    {
        using var listing = await ListAsync(server, "prefix=" + key[..key.LastIndexOf('/')], Bearer(TokenFilesServer.ReadToken));
        Assert.Empty(listing.RootElement.GetProperty("items").EnumerateArray());
        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key, Bearer(TokenFilesServer.ReadToken));
        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
    }
}
