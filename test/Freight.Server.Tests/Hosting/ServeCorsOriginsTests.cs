using System.Net;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// <c>Freight:CorsOrigins</c> through <c>freight serve</c>'s start: a value spelled otherwise than a browser writes its
/// Origin is taken as the browser writes it, and what is no origin stops the start (exit code 2) saying what is wrong.
/// A trailing <c>/</c> started the server and matched no page; an upper-case host and a wildcard were refused as if they
/// had no scheme.
/// </summary>
public sealed class ServeCorsOriginsTests : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));

    public ServeCorsOriginsTests() => Directory.CreateDirectory(_directory);

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [Theory]
    [InlineData("http://127.0.0.1:5190/", "http://127.0.0.1:5190")]
    [InlineData("http://LOCALHOST:5190", "http://localhost:5190")]
    [InlineData("HTTPS://App.Example.com:443/", "https://app.example.com")]
    public async Task Serve_OriginSpelledOtherwise_AllowsTheOriginABrowserSends(string configured, string origin)
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data", "--Freight:CorsOrigins:0", configured]);
        var url = new Uri(Assert.Single(await freight.ReadUntilListeningAsync(1))["listening: ".Length..]);

        using var client = new HttpClient();
        using var preflight = new HttpRequestMessage(HttpMethod.Options, new Uri(url, "/files/a.bin"));
        preflight.Headers.Add("Origin", origin);
        preflight.Headers.Add("Access-Control-Request-Method", "PUT");
        using var response = await client.SendAsync(preflight);

        Assert.Equal(HttpStatusCode.NoContent, response.StatusCode);
        Assert.Equal([origin], response.Headers.GetValues("Access-Control-Allow-Origin"));
        Assert.Equal(0, await freight.TerminateAsync());
    }

    [Theory]
    [InlineData("https://*.example.com", "a wildcard in an origin (https://*.example.com) is not supported: list each origin, or give * alone for any.")]
    [InlineData("https://app.example.com/upload", "an origin has no path, query or user name: give https://app.example.com.")]
    [InlineData("http://user@127.0.0.1:5190", "an origin has no path, query or user name: give http://127.0.0.1:5190.")]
    [InlineData("127.0.0.1:5190", "an origin is http:// or https://, a host, and a port when not the default, e.g. https://app.example.com, or * for any.")]
    [InlineData("localhost:5190", "an origin is http:// or https://, a host, and a port when not the default, e.g. https://app.example.com, or * for any.")]
    [InlineData("ftp://app.example.com", "an origin is http:// or https://, a host, and a port when not the default, e.g. https://app.example.com, or * for any.")]
    public async Task Serve_NoOrigin_Exits2SayingWhatIsWrong(string configured, string problem)
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data", "--Freight:CorsOrigins:0", configured]);

        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.Equal($"error: Freight:CorsOrigins:0 is '{configured}': {problem}", stderr.TrimEnd());
    }
}
