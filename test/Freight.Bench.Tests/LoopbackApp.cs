using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.Bench.Tests;

/// <summary>The bench tests' own servers: a slim app, no logging, real Kestrel on 127.0.0.1:0.</summary>
internal static class LoopbackApp
{
    /// <summary>An app listening on 127.0.0.1 at a port the system picks, speaking <paramref name="protocols"/>; <paramref name="limits"/> sets Kestrel's limits.</summary>
    public static WebApplication Create(HttpProtocols protocols = HttpProtocols.Http1, Action<KestrelServerLimits>? limits = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            limits?.Invoke(kestrel.Limits);
            kestrel.Listen(IPAddress.Loopback, 0, listen => listen.Protocols = protocols);
        });
        return builder.Build();
    }

    /// <summary>Where a started app listens.</summary>
    public static Uri AddressOf(WebApplication app) =>
        new(app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.Single());
}
