using System.Net;
using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Authorization;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// What runs for every request in <c>freight serve</c>: no authentication or authorization middleware (Freight checks
/// neither), and no per-request Activity and log scope from hosting's request logger unless it is turned on
/// (docs/server.md#logging). The lab's MVC study keeps its model validation.
/// </summary>
public sealed class RequestPipelineTests : IDisposable
{
    private const string HostingRequestLogger = "Microsoft.AspNetCore.Hosting.Diagnostics";

    private readonly string _dataDirectory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_dataDirectory))
        {
            Directory.Delete(_dataDirectory, recursive: true);
        }
    }

    [Fact]
    public async Task Services_NeitherAuthenticationNorAuthorization_SoWebApplicationAddsNoSuchMiddleware()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory]);

        // WebApplication puts UseAuthentication/UseAuthorization in front of every request when these are registered
        // (AddControllers registers both).
        Assert.Null(server.App.Services.GetService<IAuthenticationSchemeProvider>());
        Assert.Null(server.App.Services.GetService<IAuthorizationHandlerProvider>());
    }

    [Fact]
    public async Task HostingRequestLogger_OffByDefault_OnWhenConfigured()
    {
        await using var quiet = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory]);
        await using var verbose = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, $"--Logging:LogLevel:{HostingRequestLogger}", "Information"]);

        Assert.False(quiet.App.Services.GetRequiredService<ILoggerFactory>().CreateLogger(HostingRequestLogger).IsEnabled(LogLevel.Critical));
        Assert.True(verbose.App.Services.GetRequiredService<ILoggerFactory>().CreateLogger(HostingRequestLogger).IsEnabled(LogLevel.Information));
    }

    [Fact]
    public async Task IFormFileStudy_FormWithoutItsRequiredFile_400ValidationProblemAndTheServerServes()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory]);
        await server.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(server.Urls.Single()) };
        using var form = new MultipartFormDataContent { { new StringContent("7"), "SomeValue" } };

        using var refused = await client.PostAsync(new Uri("/lab/upload/iformfile", UriKind.Relative), form);
        var problem = await refused.Content.ReadAsStringAsync();
        using var file = new MultipartFormDataContent { { new StringContent("7"), "SomeValue" }, { new ByteArrayContent(Payloads.Bytes(1000)), "File", "a.bin" } };
        using var accepted = await client.PostAsync(new Uri("/lab/upload/iformfile", UriKind.Relative), file);

        Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
        Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
        Assert.Contains("The File field is required", problem, StringComparison.Ordinal);
        Assert.True(accepted.IsSuccessStatusCode, $"{(int)accepted.StatusCode}: {await accepted.Content.ReadAsStringAsync()}");
    }
}
