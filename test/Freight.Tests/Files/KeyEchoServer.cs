using System.Net.Sockets;
using System.Text;
using Freight.Files;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace Freight.Tests.Files;

/// <summary>
/// Real Kestrel on 127.0.0.1:0 with <c>GET /files/{*path}</c> answering the parsed key (200, text) or
/// the rule it broke (400, problem+json), to see what the route really hands to <see cref="StorageKey"/>.
/// </summary>
public sealed class KeyEchoServer : IAsyncLifetime
{
    private WebApplication? _app;
    private int _port;

    public async Task InitializeAsync()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        _app = builder.Build();
        _app.MapGet("/files/{*path}", (string? path) =>
            StorageKey.TryParse(path, out var key, out var error)
                ? Results.Text(key.Value)
                : Results.Problem(detail: error, statusCode: StatusCodes.Status400BadRequest, title: "Invalid path"));
        await _app.StartAsync();
        _port = new Uri(_app.Urls.First()).Port;
    }

    public async Task DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.DisposeAsync();
        }
    }

    /// <summary>
    /// Sends <paramref name="target"/> byte for byte as the request-target (HttpClient would tidy dot
    /// segments first) and returns the status code and body. HTTP/1.0, so the body comes unchunked and
    /// ends with the connection.
    /// </summary>
    public async Task<(int Status, string Body)> GetAsync(string target)
    {
        using var client = new TcpClient();
        await client.ConnectAsync("127.0.0.1", _port);
        var stream = client.GetStream();
        await stream.WriteAsync(Encoding.ASCII.GetBytes($"GET {target} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"));
        using var reader = new StreamReader(stream, Encoding.UTF8);
        var response = await reader.ReadToEndAsync();

        var status = int.Parse(response.AsSpan(9, 3), provider: null);
        var body = response[(response.IndexOf("\r\n\r\n", StringComparison.Ordinal) + 4)..];
        return (status, body);
    }
}
