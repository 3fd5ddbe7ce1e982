using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Library;

/// <summary>
/// <c>UseFreightCors()</c> in an app of a user's own (not serve), on a real Kestrel at 127.0.0.1:0: with a named policy
/// of one origin every answer varies by Origin, a request without one included; with any origin allowed nothing varies,
/// and Timing-Allow-Origin follows what CORS allowed.
/// </summary>
public sealed class UseFreightCorsTests
{
    private const string Page = "https://app.example.test";

    [Fact]
    public async Task NamedPolicyOfOneOrigin_EveryAnswerVariesByOrigin()
    {
        await using var app = await StartAsync(cors => cors.AddPolicy("page", policy => policy.WithOrigins(Page).WithFreightHeaders()), "page");
        using var client = new HttpClient { BaseAddress = new Uri(app.Urls.Single()) };

        using var navigation = await client.GetAsync("/files/none.bin");
        using var fetch = await SendAsync(client, "/files/none.bin", Page);

        Assert.Equal(HttpStatusCode.NotFound, navigation.StatusCode);
        Assert.Equal(["Origin"], navigation.Headers.Vary);
        Assert.Equal(["Origin"], fetch.Headers.Vary);
        Assert.Equal([Page], fetch.Headers.GetValues("Access-Control-Allow-Origin"));
        Assert.Equal([Page], fetch.Headers.GetValues("Timing-Allow-Origin"));
    }

    [Fact]
    public async Task AnyOrigin_NothingVaries()
    {
        await using var app = await StartAsync(cors => cors.AddDefaultPolicy(policy => policy.AllowAnyOrigin().WithFreightHeaders()), policyName: null);
        using var client = new HttpClient { BaseAddress = new Uri(app.Urls.Single()) };

        using var navigation = await client.GetAsync("/files/none.bin");
        using var fetch = await SendAsync(client, "/files/none.bin", Page);

        Assert.Empty(navigation.Headers.Vary);
        Assert.Empty(fetch.Headers.Vary);
        Assert.Equal(["*"], fetch.Headers.GetValues("Access-Control-Allow-Origin"));
        Assert.Equal(["*"], fetch.Headers.GetValues("Timing-Allow-Origin"));
    }

    private static async Task<HttpResponseMessage> SendAsync(HttpClient client, string path, string origin)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        request.Headers.Add("Origin", origin);
        return await client.SendAsync(request);
    }

    private static async Task<WebApplication> StartAsync(Action<Microsoft.AspNetCore.Cors.Infrastructure.CorsOptions> cors, string? policyName)
    {
        var builder = WebApplication.CreateBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddFreightFiles();
        builder.Services.AddFreightMemoryStore();
        builder.Services.AddCors(cors);
        var app = builder.Build();
        app.UseFreightProblems();
        app.UseFreightCors(policyName);
        app.MapFreightFiles("/files");
        await app.StartAsync();
        return app;
    }
}
