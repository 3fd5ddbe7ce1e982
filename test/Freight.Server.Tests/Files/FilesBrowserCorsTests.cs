using System.Net;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.Logging;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// A page on one 127.0.0.1 origin using serve on another, in real headless Chromium (<see cref="BrowserPage"/>): what a
/// browser lets the page read is what counts, not only what the server sends. Before, the page read no Content-Location
/// of its finished tus upload and no download name, could not ask tus's OPTIONS nor send Content-Encoding (a network
/// error instead of the 415 problem), Resource Timing hid its requests, and a tab that had opened a file's URL left a
/// cached copy the page's fetch then failed on (one origin listed: no Vary: Origin).
/// </summary>
public sealed class FilesBrowserCorsTests(FilesBrowserCorsTests.PageAndServer server) : IClassFixture<FilesBrowserCorsTests.PageAndServer>
{
    [Fact]
    public async Task Page_OnAnotherOrigin_ReadsWhatServeAnswers()
    {
        await BrowserPage.EnsureInstalledAsync();
        var root = NewRoot();
        var shared = $"{root}/shared.txt";
        // Text, which a tab shows (a download would not be a navigation's answer in the cache).
        using (var request = Put(server, shared, "opened by a link"u8.ToArray()))
        {
            request.Content!.Headers.ContentType = new("text/plain");
            using var put = await server.Client.SendAsync(request);
            await AssertStatusAsync(put, HttpStatusCode.Created);
        }

        // Ten hours old: a browser keeps an answer without Cache-Control an hour (a tenth of its age) and reuses it unasked.
        File.SetLastWriteTimeUtc(server.DiskPath(shared), DateTime.UtcNow.AddHours(-10));

        var page = await BrowserPage.RunCorsAsync(server.PageAddress, server.HttpAddress, $"{root}/hello.txt", shared);

        // The console reports each error status ("Failed to load resource"); a CORS refusal would name CORS.
        Assert.DoesNotContain(page.GetProperty("consoleErrors").EnumerateArray(), error => error.GetString()!.Contains("CORS", StringComparison.Ordinal));
        Assert.Equal(204, page.GetProperty("discovery").GetProperty("status").GetInt32());
        Assert.False(string.IsNullOrEmpty(page.GetProperty("discovery").GetProperty("maxSize").GetString()), page.ToString());
        var tus = page.GetProperty("tus");
        Assert.Equal(201, tus.GetProperty("created").GetProperty("status").GetInt32());
        Assert.Equal(204, tus.GetProperty("finished").GetProperty("status").GetInt32());
        Assert.Equal($"/files/{root}/hello.txt", tus.GetProperty("finished").GetProperty("contentLocation").GetString());
        Assert.Equal("hello from another origin", tus.GetProperty("readBack").GetProperty("text").GetString());
        Assert.Equal("attachment; filename=\"report 2026.csv\"; filename*=UTF-8''report%202026.csv", page.GetProperty("report").GetProperty("contentDisposition").GetString());
        AssertProblem(page.GetProperty("missing"), 404);
        AssertProblem(page.GetProperty("compressed"), 415);
        AssertProblem(page.GetProperty("failure"), 500);
        Assert.Equal("http/1.1", page.GetProperty("timing").GetProperty("nextHopProtocol").GetString());
        Assert.Equal(200, page.GetProperty("afterTab").GetProperty("status").GetInt32());
        Assert.Equal("opened by a link", page.GetProperty("afterTab").GetProperty("text").GetString());
    }

    private static void AssertProblem(JsonElement answer, int status)
    {
        Assert.True(answer.TryGetProperty("status", out var read), answer.ToString());
        Assert.Equal(status, read.GetInt32());
        Assert.Equal("application/problem+json", answer.GetProperty("contentType").GetString());
        Assert.Equal(status, answer.GetProperty("problem").GetProperty("status").GetInt32());
    }

    /// <summary>
    /// serve (no tokens, as a deployment whose files a link may open) listing the origin of a page host of its own: a
    /// Kestrel on another 127.0.0.1 port that serves an empty page, started first so its origin can be listed.
    /// </summary>
    public sealed class PageAndServer() : FilesServer
    {
        private WebApplication? _pageHost;

        public Uri PageAddress { get; private set; } = null!;

        protected override async Task<string[]> StartArgumentsAsync()
        {
            var builder = WebApplication.CreateBuilder();
            builder.Logging.ClearProviders();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            _pageHost = builder.Build();
            _pageHost.MapGet("/", () => Results.Content("<!doctype html><title>a page on another origin</title>", "text/html"));
            await _pageHost.StartAsync();
            PageAddress = new Uri(_pageHost.Urls.Single());
            return ["--Freight:CorsOrigins:0", PageAddress.GetLeftPart(UriPartial.Authority)];
        }

        protected override void MapRoutes(WebApplication app) => FilesCorsTests.CorsServer.MapAppRoutes(app, DataDirectory);

        protected override async Task AfterStopAsync()
        {
            if (_pageHost is not null)
            {
                await _pageHost.DisposeAsync();
            }
        }
    }
}
