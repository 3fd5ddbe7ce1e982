using System.Net;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// Bearer tokens (RFC 6750): without one every files request gets 401 with a Bearer challenge; a read
/// token reads but may not write (invalid_token); a write token does both.
/// </summary>
public sealed class FilesTokenTests(TokenFilesServer server) : IClassFixture<TokenFilesServer>
{
    private static readonly byte[] s_content = Content(2048, seed: 31);

    private static (string, string) Bearer(string token) => ("Authorization", "Bearer " + token);

    [Theory]
    [InlineData("GET", "/files/some/file.bin")]
    [InlineData("DELETE", "/files/some/file.bin")]
    [InlineData("GET", "/files?prefix=some")]
    public async Task Request_WithoutToken_Returns401WithBearerChallenge(string method, string path)
    {
        using var response = await SendAsync(server, new HttpMethod(method), path);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Unauthorized);
        Assert.StartsWith("Bearer", Assert.Single(response.Headers.WwwAuthenticate).ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Put_WithoutToken_Returns401AndStoresNothing()
    {
        var key = $"{NewRoot()}/anonymous.bin";

        using var response = await PutAsync(server, key, s_content);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Unauthorized);
        Assert.Equal("Bearer", Assert.Single(response.Headers.WwwAuthenticate).Scheme);
        Assert.False(File.Exists(server.DiskPath(key)));
    }

    [Theory]
    [InlineData("Basic dXNlcjpwYXNz")]
    [InlineData("Bearer")]
    public async Task Put_OtherSchemeOrEmptyBearer_Returns401(string authorization)
    {
        var key = $"{NewRoot()}/scheme.bin";

        using var response = await PutAsync(server, key, s_content, ("Authorization", authorization));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Unauthorized);
        Assert.Equal("Bearer", Assert.Single(response.Headers.WwwAuthenticate).Scheme);
        Assert.False(File.Exists(server.DiskPath(key)));
    }

    [Fact]
    public async Task Put_WithReadToken_Returns403InsufficientScope()
    {
        var key = $"{NewRoot()}/read-only.bin";

        using var response = await PutAsync(server, key, s_content, Bearer(TokenFilesServer.ReadToken));

        // RFC 6750 §3.1: the token is valid, it lacks the right; invalid_token would send the client for a new token.
        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Forbidden);
        Assert.Contains("error=\"insufficient_scope\"", Assert.Single(response.Headers.WwwAuthenticate).ToString(), StringComparison.Ordinal);
        Assert.False(File.Exists(server.DiskPath(key)));
    }

    [Fact]
    public async Task Get_WithUnknownToken_Returns401InvalidToken()
    {
        using var response = await SendAsync(server, HttpMethod.Get, "/files?prefix=x", Bearer("not-a-token"));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Unauthorized);
        Assert.Contains("error=\"invalid_token\"", Assert.Single(response.Headers.WwwAuthenticate).ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Delete_WithReadToken_Returns403AndTheFileStays()
    {
        var key = $"{NewRoot()}/kept.bin";
        using (var created = await PutAsync(server, key, s_content, Bearer(TokenFilesServer.WriteToken)))
        {
            await AssertStatusAsync(created, HttpStatusCode.Created);
        }

        using var response = await SendAsync(server, HttpMethod.Delete, "/files/" + key, Bearer(TokenFilesServer.ReadToken));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Forbidden);
        Assert.Equal(s_content, await File.ReadAllBytesAsync(server.DiskPath(key)));
    }

    [Fact]
    public async Task Put_WithWriteToken_Returns201ThenReadTokenReadsIt()
    {
        var key = $"{NewRoot()}/written.bin";

        using var created = await PutAsync(server, key, s_content, Bearer(TokenFilesServer.WriteToken));

        await AssertStatusAsync(created, HttpStatusCode.Created);
        using (var listing = await ListAsync(server, "prefix=" + key[..key.IndexOf('/', StringComparison.Ordinal)], Bearer(TokenFilesServer.ReadToken)))
        {
            Assert.Equal(key, Assert.Single(listing.RootElement.GetProperty("items").EnumerateArray()).GetProperty("name").GetString());
        }

        using var read = await SendAsync(server, HttpMethod.Get, "/files/" + key, Bearer(TokenFilesServer.ReadToken));
        await AssertStatusAsync(read, HttpStatusCode.OK);
        Assert.Equal(s_content, await read.Content.ReadAsByteArrayAsync());

        using var writerReads = await SendAsync(server, HttpMethod.Get, "/files/" + key, Bearer(TokenFilesServer.WriteToken));
        await AssertStatusAsync(writerReads, HttpStatusCode.OK);
    }

    [Fact]
    public async Task Reads_WithTokens_CacheControlPrivateNoCache()
    {
        // A shared cache told to cache regardless of Authorization must not keep one user's file for the next.
        var key = $"{NewRoot()}/private.bin";
        var etag = await CreatedETagAsync(key);

        using var whole = await SendAsync(server, HttpMethod.Get, "/files/" + key, Bearer(TokenFilesServer.ReadToken));
        using var notModified = await SendAsync(server, HttpMethod.Get, "/files/" + key, Bearer(TokenFilesServer.ReadToken), ("If-None-Match", etag));
        using var listing = await SendAsync(server, HttpMethod.Get, "/files?prefix=" + key[..key.IndexOf('/', StringComparison.Ordinal)], Bearer(TokenFilesServer.ReadToken));

        foreach (var (response, status) in new[] { (whole, HttpStatusCode.OK), (notModified, HttpStatusCode.NotModified), (listing, HttpStatusCode.OK) })
        {
            Assert.Equal(status, response.StatusCode);
            var cacheControl = response.Headers.CacheControl;
            Assert.True(cacheControl is { Private: true, NoCache: true, NoStore: false, Public: false }, $"{status}: Cache-Control {cacheControl}");
        }
    }

    private async Task<string> CreatedETagAsync(string key)
    {
        using var created = await PutAsync(server, key, s_content, Bearer(TokenFilesServer.WriteToken));
        await AssertStatusAsync(created, HttpStatusCode.Created);
        return created.Headers.ETag!.ToString();
    }
}
