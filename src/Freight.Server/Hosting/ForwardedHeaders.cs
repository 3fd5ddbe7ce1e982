using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.HttpOverrides;
using IPNetwork = System.Net.IPNetwork;

namespace Freight.Server.Hosting;

/// <summary>
/// ASP.NET Core's forwarded-headers middleware for <c>Freight:TrustedProxies</c>: a request from one of them takes its
/// client address and scheme from <c>X-Forwarded-For</c> / <c>X-Forwarded-Proto</c>, so per-client limits and log lines see
/// the client, not the proxy, and its <c>X-Forwarded-Prefix</c> (a proxy that mounts serve under <c>/freight/</c> and
/// strips that) becomes the request's PathBase, which every URL serve hands out starts with (Location, Content-Location,
/// the 404's listing hint). Only the listed proxies: the middleware's own default trusts loopback, which would let any
/// local process claim to be any client.
/// </summary>
internal static class ForwardedHeaders
{
    public static void UseFor(WebApplication app, IReadOnlyList<string> trustedProxies)
    {
        if (trustedProxies.Count == 0)
        {
            return;
        }

        var options = new ForwardedHeadersOptions { ForwardedHeaders = Microsoft.AspNetCore.HttpOverrides.ForwardedHeaders.XForwardedFor | Microsoft.AspNetCore.HttpOverrides.ForwardedHeaders.XForwardedProto | Microsoft.AspNetCore.HttpOverrides.ForwardedHeaders.XForwardedPrefix };
        options.KnownProxies.Clear();
        options.KnownIPNetworks.Clear();
        foreach (var proxy in trustedProxies)
        {
            options.KnownIPNetworks.Add(TryParseProxy(proxy)!.Value);
        }

        app.UseForwardedHeaders(options);
    }

    /// <summary>An address (as a network of one) or a network in CIDR notation; null when it is neither.</summary>
    public static IPNetwork? TryParseProxy(string proxy)
    {
        if (IPNetwork.TryParse(proxy, out var network))
        {
            return network;
        }

        return IPAddress.TryParse(proxy, out var address) ? new IPNetwork(address, address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetwork ? 32 : 128) : null;
    }
}
