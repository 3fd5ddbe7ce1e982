using System.Net;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// The files API's bearer tokens guard /tus too: every request but OPTIONS needs a write token (401 with a
/// Bearer challenge otherwise, a read token included), and a refused request changes nothing.
/// </summary>
public sealed class TusTokenTests(TokenTusServer server) : IClassFixture<TokenTusServer>
{
    private static readonly byte[] s_content = Content(300_000, seed: 141);

    private static (string, string) Bearer(string token) => ("Authorization", "Bearer " + token);

    public static TheoryData<string, string?> Refusals() => new()
    {
        { "POST", null }, { "HEAD", null }, { "PATCH", null }, { "DELETE", null },
        { "POST", TokenTusServer.ReadToken }, { "HEAD", TokenTusServer.ReadToken }, { "PATCH", TokenTusServer.ReadToken }, { "DELETE", TokenTusServer.ReadToken },
        { "PATCH", "not-a-token" },
    };

    [Theory]
    [MemberData(nameof(Refusals))]
    public async Task Request_WithoutWriteToken_Returns401Or403WithBearerChallengeAndChangesNothing(string method, string? token)
    {
        var key = NewFileName();
        var path = await CreateWithTokenAsync(key);
        await PatchWithTokenAsync(path, 0, s_content[..1000]);
        var before = server.TusFiles();

        using var request = Request(server, new HttpMethod(method), method == "POST" ? "/tus/" : path);
        if (token is not null)
        {
            AddHeaders(request, Bearer(token));
        }

        if (method == "PATCH")
        {
            request.Content = Body(s_content[1000..]);
            AddHeaders(request, ("Upload-Offset", "1000"));
        }
        else if (method == "POST")
        {
            AddHeaders(request, ("Upload-Length", "10"));
        }

        using var response = await server.Client.SendAsync(request);

        // A read token is valid but may not write: 403 insufficient_scope (RFC 6750 §3.1); no token or an unknown one: 401.
        var readToken = token == TokenTusServer.ReadToken;
        await AssertRefusedAsync(response, readToken ? HttpStatusCode.Forbidden : HttpStatusCode.Unauthorized);
        var challenge = Assert.Single(response.Headers.WwwAuthenticate);
        Assert.Equal("Bearer", challenge.Scheme);
        if (token is not null)
        {
            Assert.Contains(readToken ? "error=\"insufficient_scope\"" : "error=\"invalid_token\"", challenge.ToString(), StringComparison.Ordinal);
        }

        Assert.Equal(before, server.TusFiles());
        Assert.Equal(s_content[..1000], server.StoredBytes(Id(path)));
        using var head = Request(server, HttpMethod.Head, path);
        AddHeaders(head, Bearer(TokenTusServer.WriteToken));
        using var state = await server.Client.SendAsync(head);
        Assert.Equal(HttpStatusCode.OK, state.StatusCode);
        Assert.Equal(1000, Offset(state));
    }

    [Fact]
    public async Task Options_WithoutToken_Returns204()
    {
        using var request = Request(server, HttpMethod.Options, "/tus/", resumable: null);

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.NoContent, response.StatusCode);
        Assert.Equal("1.0.0", Header(response, "Tus-Version"));
    }

    [Fact]
    public async Task Upload_WithWriteToken_BecomesAFileReadableWithTheReadToken()
    {
        var key = NewFileName();
        var path = await CreateWithTokenAsync(key);

        await PatchWithTokenAsync(path, 0, s_content[..100_000]);
        await PatchWithTokenAsync(path, 100_000, s_content[100_000..]);

        using var get = await SendAsync(server, HttpMethod.Get, "/files/" + key, Bearer(TokenTusServer.ReadToken));
        await AssertStatusAsync(get, HttpStatusCode.OK);
        Assert.Equal(ETag(s_content), get.Headers.ETag?.ToString());
        Assert.Equal(s_content, await get.Content.ReadAsByteArrayAsync());
        Assert.Null(server.StoredBytes(Id(path)));
    }

    [Fact]
    public async Task Delete_WithWriteToken_Returns204()
    {
        var path = await CreateWithTokenAsync(NewFileName());

        using var request = Request(server, HttpMethod.Delete, path);
        AddHeaders(request, Bearer(TokenTusServer.WriteToken));
        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.NoContent, response.StatusCode);
        Assert.False(server.HasRecord(Id(path)));
    }

    private async Task<string> CreateWithTokenAsync(string key)
    {
        using var response = await PostAsync(server,
            [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", key))), Bearer(TokenTusServer.WriteToken)]);
        return await CreatedAsync(response);
    }

    private async Task PatchWithTokenAsync(string path, long offset, byte[] chunk)
    {
        using var response = await PatchAsync(server, path, offset, chunk, headers: Bearer(TokenTusServer.WriteToken));
        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        Assert.Equal(offset + chunk.Length, Offset(response));
    }
}
