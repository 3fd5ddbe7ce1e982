using System.Net;
using System.Text;
using Freight.AspNetCore.Results;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// A page on another origin using the files API and tus (<c>Freight:CorsOrigins</c>, the library's
/// <c>WithFreightHeaders()</c>), as a browser would: the preflight allows the token and the tus headers, answers
/// expose ETag, Location and Upload-Offset, a refusal's problem stays readable, and an origin not listed gets nothing.
/// Every answer varies by Origin, even to a request without one (a tab's navigation), though one origin is listed.
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

    /// <summary>
    /// What a page's request may carry beyond the endpoints' own headers: OPTIONS for tus discovery, Content-Encoding (so
    /// a compressed body reads the 415 problem), Cache-Control and Pragma (added by some HTTP wrappers). Each failed the
    /// preflight, so the page saw only a network error.
    /// </summary>
    [Theory]
    [InlineData("/tus/", "OPTIONS", "tus-resumable")]
    [InlineData("/files/a.bin", "PUT", "content-encoding, content-type, authorization")]
    [InlineData("/files/a.bin", "GET", "cache-control, pragma, authorization")]
    public async Task Preflight_DiscoveryCompressionAndWrapperHeaders_Allowed(string path, string method, string headers)
    {
        using var preflight = await SendAsync(server, HttpMethod.Options, path,
            ("Origin", Page), ("Access-Control-Request-Method", method), ("Access-Control-Request-Headers", headers));

        Assert.Equal(HttpStatusCode.NoContent, preflight.StatusCode);
        Assert.Equal(Page, Header(preflight, "Access-Control-Allow-Origin"));
        Assert.Contains(method.ToLowerInvariant(), List(preflight, "Access-Control-Allow-Methods"));
        var allowed = List(preflight, "Access-Control-Allow-Headers");
        Assert.All(headers.Split(", "), name => Assert.Contains(name, allowed));
    }

    /// <summary>A finished tus upload names its file in Content-Location; the page could not read it (nor a download's name).</summary>
    [Fact]
    public async Task TusPatch_FinishingTheUpload_ExposesContentLocation()
    {
        var key = $"{NewRoot()}/tus.txt";
        using var creation = await SendAsync(server, HttpMethod.Post, "/tus/",
            ("Origin", Page), ("Authorization", "Bearer " + CorsServer.WriteToken), ("Tus-Resumable", "1.0.0"), ("Upload-Length", "5"),
            ("Upload-Metadata", "filename " + Convert.ToBase64String(Encoding.UTF8.GetBytes(key))));
        await AssertStatusAsync(creation, HttpStatusCode.Created);

        using var patch = server.Request(HttpMethod.Patch, Protocol.Http11, creation.Headers.Location!.OriginalString);
        patch.Headers.Add("Origin", Page);
        patch.Headers.Add("Authorization", "Bearer " + CorsServer.WriteToken);
        patch.Headers.Add("Tus-Resumable", "1.0.0");
        patch.Headers.Add("Upload-Offset", "0");
        patch.Content = new ByteArrayContent("hello"u8.ToArray());
        patch.Content.Headers.ContentType = new("application/offset+octet-stream");
        using var finished = await server.Client.SendAsync(patch);

        await AssertStatusAsync(finished, HttpStatusCode.NoContent);
        Assert.Equal("/files/" + key, Header(finished, "Content-Location"));
        var exposed = List(finished, "Access-Control-Expose-Headers");
        Assert.Contains("content-location", exposed);
        Assert.Contains("content-disposition", exposed);
    }

    /// <summary>
    /// One origin listed: ASP.NET Core's CORS sent no Vary (it does with two), and nothing to a request without Origin,
    /// so a browser reused a tab's cached copy, which has no CORS headers, for the page's fetch of the same URL.
    /// </summary>
    [Fact]
    public async Task Get_WithOrWithoutOrigin_VariesByOrigin()
    {
        var key = $"{NewRoot()}/shared.txt";
        var token = ("Authorization", "Bearer " + CorsServer.WriteToken);
        using (var created = await PutAsync(server, key, Content(10, seed: 52), token))
        {
            await AssertStatusAsync(created, HttpStatusCode.Created);
        }

        using var navigation = await SendAsync(server, HttpMethod.Get, "/files/" + key, token);
        using var fetch = await SendAsync(server, HttpMethod.Get, "/files/" + key, token, ("Origin", Page));
        using var missing = await SendAsync(server, HttpMethod.Get, $"/files/{key}.gone", token, ("Origin", Page));
        using var foreign = await SendAsync(server, HttpMethod.Get, "/files/" + key, token, ("Origin", "https://evil.example.test"));
        using var preflight = await SendAsync(server, HttpMethod.Options, "/files/" + key, ("Origin", Page), ("Access-Control-Request-Method", "GET"));

        foreach (var response in new[] { navigation, fetch, missing, foreign, preflight })
        {
            Assert.Equal(["Origin"], response.Headers.Vary);
        }

        Assert.False(navigation.Headers.Contains("Access-Control-Allow-Origin"));
        Assert.Equal(Page, Header(fetch, "Access-Control-Allow-Origin"));
        await ProblemAssert.IsProblemAsync(missing, HttpStatusCode.NotFound);
        Assert.Equal(Page, Header(missing, "Access-Control-Allow-Origin"));
    }

    /// <summary>Resource Timing shows a page its requests (timings, protocol) only with Timing-Allow-Origin: for the origins CORS allows.</summary>
    [Fact]
    public async Task Get_FromTheListedOrigin_AllowsItsTiming()
    {
        var key = $"{NewRoot()}/timed.txt";
        var token = ("Authorization", "Bearer " + CorsServer.WriteToken);
        using (var created = await PutAsync(server, key, Content(10, seed: 53), token))
        {
            await AssertStatusAsync(created, HttpStatusCode.Created);
        }

        using var fetch = await SendAsync(server, HttpMethod.Get, "/files/" + key, token, ("Origin", Page));
        using var foreign = await SendAsync(server, HttpMethod.Get, "/files/" + key, token, ("Origin", "https://evil.example.test"));
        using var navigation = await SendAsync(server, HttpMethod.Get, "/files/" + key, token);

        Assert.Equal(Page, Header(fetch, "Timing-Allow-Origin"));
        Assert.False(foreign.Headers.Contains("Timing-Allow-Origin"));
        Assert.False(navigation.Headers.Contains("Timing-Allow-Origin"));
    }

    /// <summary>
    /// A route of the app's own: the download name FreightResults.File sets is readable, and a failure of the app's
    /// own, answered by UseFreightProblems as a 500 problem, keeps the CORS headers (serve puts UseFreightCors after it).
    /// </summary>
    [Fact]
    public async Task AppRoutes_DownloadNameAndFailure_ReadableByThePage()
    {
        using var report = await SendAsync(server, HttpMethod.Get, "/my/report", ("Origin", Page));
        using var failure = await SendAsync(server, HttpMethod.Get, "/my/fails", ("Origin", Page));

        await AssertStatusAsync(report, HttpStatusCode.OK);
        Assert.StartsWith("attachment; filename=", Header(report, "Content-Disposition"), StringComparison.Ordinal);
        Assert.Contains("content-disposition", List(report, "Access-Control-Expose-Headers"));
        await ProblemAssert.IsProblemAsync(failure, HttpStatusCode.InternalServerError);
        Assert.Equal(Page, Header(failure, "Access-Control-Allow-Origin"));
        Assert.Equal(["Origin"], failure.Headers.Vary);
    }

    [Fact]
    public async Task Get_FromAnotherOrigin_NoCorsHeaders()
    {
        using var response = await SendAsync(server, HttpMethod.Get, $"/files/{NewRoot()}/x.bin", ("Origin", "https://evil.example.test"), ("Authorization", "Bearer " + CorsServer.WriteToken));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        Assert.False(response.Headers.Contains("Access-Control-Allow-Origin"));
    }

    /// <summary>A list header's names, lower case.</summary>
    private static string[] List(HttpResponseMessage response, string name) =>
        Header(response, name).ToLowerInvariant().Split(',', StringSplitOptions.TrimEntries);

    private static string Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values) ? string.Join(", ", values) : "";

    public sealed class CorsServer() : FilesServer(
        "--Freight:CorsOrigins:0", Page, "--Freight:Files:WriteTokens:0", WriteToken)
    {
        public const string WriteToken = "cors-w";

        /// <summary>A download with its name, and a bug of the app's own (UseFreightProblems answers it as a 500 problem).</summary>
        protected override void MapRoutes(WebApplication app) => MapAppRoutes(app, DataDirectory);

        /// <summary>The app's routes, for the browser's test too.</summary>
        public static void MapAppRoutes(WebApplication app, string dataDirectory)
        {
            Directory.CreateDirectory(dataDirectory);
            var report = Path.Combine(dataDirectory, "report.csv");
            File.WriteAllText(report, "a,b\n");
            app.MapGet("/my/report", () => FreightResults.File(report, "text/csv", "report 2026.csv"));
            app.MapGet("/my/fails", string () => throw new InvalidOperationException("a secret of the app's own"));
        }
    }
}
