using Freight.AspNetCore.Errors;
using Freight.AspNetCore.RequestHeads;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers Freight's strict <c>Content-Length</c> check: <c>builder.Services.AddFreightStrictContentLength()</c>.</summary>
public static class FreightContentLengthServiceCollectionExtensions
{
    /// <summary>
    /// Refuses an HTTP/1.x request whose <c>Content-Length</c> is not digits only (<c>+5</c>, <c>-0</c>, which Kestrel
    /// reads as 5 and 0) with a 400 problem+json, logged once, and closes its connection (RFC 9110 §8.6, RFC 9112 §6.3):
    /// a front proxy that reads such a length otherwise would frame the body differently. Both halves in one call: a
    /// connection middleware on every Kestrel endpoint (<see cref="KestrelServerOptions.ConfigureEndpointDefaults"/>:
    /// an app that sets its own endpoint defaults replaces it, and a warning says so at the first request), which keeps
    /// each request head's raw value, and a middleware in front of the app's pipeline (an <see cref="IStartupFilter"/>)
    /// that judges it. HTTP/2 is not affected.
    /// </summary>
    public static IServiceCollection AddFreightStrictContentLength(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        if (services.Any(static service => service.ServiceType == typeof(RawContentLengths)))
        {
            return services;
        }

        services.AddSingleton<RawContentLengths>();
        services.AddSingleton<ContentLengthMiddleware>();
        services.TryAddSingleton<ProblemMiddleware>();
        services.AddProblemDetails();
        // First of Kestrel's configurations: an endpoint takes the defaults when it is declared (Listen), so a
        // ConfigureKestrel of the app's, before this call or after, declares its endpoints with the scan in place.
        services.Insert(0, ServiceDescriptor.Singleton<IConfigureOptions<KestrelServerOptions>>(static provider =>
            new ConfigureOptions<KestrelServerOptions>(kestrel =>
            {
                var lengths = provider.GetRequiredService<RawContentLengths>();
                kestrel.ConfigureEndpointDefaults(listen => listen.Use(lengths.ScanOn(listen)));
            })));
        services.AddTransient<IStartupFilter, StrictContentLengthStartupFilter>();
        return services;
    }
}
