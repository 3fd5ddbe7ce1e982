using System.Net;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// A page on another origin using the files API and tus (<c>Freight:CorsOrigins</c>, the library's
/// <c>WithFreightHeaders()</c>), as a browser would: the preflight allows the token and the tus headers, answers
/// expose ETag, Location and Upload-Offset, a refusal's problem stays readable, and an origin not listed gets nothing.
/// </summary>
public sealed class FilesCorsTests(FilesCorsTests.CorsServer server) : IClassFixture<FilesCorsTests.CorsServer>
{
    private const string Page = "https://app.example.test";

    [Fact]
    public async Task Preflight_TusCreationWithAToken_AllowsItsMethodAndHeaders()
    {
        using var preflight = await SendAsync(server, HttpMethod.Options, "/tus/",
            ("Origin", Page), ("Access-Control-Request-Method", "POST"), ("Access-Control-Request-Headers", "authorization, tus-resumable, upload-length, upload-metadata"));

        Assert.Equal(HttpStatusCode.NoContent, preflight.StatusCode);
        Assert.Equal(Page, Header(preflight, "Access-Control-Allow-Origin"));
        Assert.Contains("POST", Header(preflight, "Access-Control-Allow-Methods"), StringComparison.Ordinal);
        var allowed = Header(preflight, "Access-Control-Allow-Headers").ToLowerInvariant();
        Assert.All(new[] { "authorization", "tus-resumable", "upload-length", "upload-metadata" }, name => Assert.Contains(name, allowed, StringComparison.Ordinal));
        Assert.Equal("3600", Header(preflight, "Access-Control-Max-Age"));
    }

    [Fact]
    public async Task Put_FromTheListedOrigin_ExposesETagAndLocation()
    {
        var key = $"{NewRoot()}/page.bin";

        using var response = await PutAsync(server, key, Content(1000, seed: 51), ("Origin", Page), ("Authorization", "Bearer " + CorsServer.WriteToken));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        Assert.Equal(Page, Header(response, "Access-Control-Allow-Origin"));
        var exposed = Header(response, "Access-Control-Expose-Headers").ToLowerInvariant();
        Assert.All(new[] { "etag", "location", "upload-offset", "www-authenticate" }, name => Assert.Contains(name, exposed, StringComparison.Ordinal));
    }

    [Fact]
    public async Task Get_WithoutTheToken_401ProblemStaysReadableByThePage()
    {
        using var response = await SendAsync(server, HttpMethod.Get, $"/files/{NewRoot()}/x.bin", ("Origin", Page));

        // The CORS middleware adds its headers as the response starts, after the problem's answer cleared the response.
        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Unauthorized);
        Assert.Equal(Page, Header(response, "Access-Control-Allow-Origin"));
        Assert.Contains("www-authenticate", Header(response, "Access-Control-Expose-Headers").ToLowerInvariant(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_FromAnotherOrigin_NoCorsHeaders()
    {
        using var response = await SendAsync(server, HttpMethod.Get, $"/files/{NewRoot()}/x.bin", ("Origin", "https://evil.example.test"), ("Authorization", "Bearer " + CorsServer.WriteToken));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        Assert.False(response.Headers.Contains("Access-Control-Allow-Origin"));
    }

    private static string Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) ? string.Join(", ", values) : "";

    public sealed class CorsServer() : FilesServer(
        "--Freight:CorsOrigins:0", Page, "--Freight:Files:WriteTokens:0", WriteToken)
    {
        public const string WriteToken = "cors-w";
    }
}
