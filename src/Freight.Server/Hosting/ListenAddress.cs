using System.Net;

namespace Freight.Server.Hosting;

/// <summary>One address from <see cref="FreightServerOptions.Urls"/>.</summary>
public sealed record ListenAddress(bool Https, IPAddress Address, int Port)
{
    /// <summary>Splits a semicolon- or comma-separated URL list.</summary>
    public static string[] SplitUrls(string urls) =>
        urls.Split([';', ','], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);

    /// <summary>Parses <c>http(s)://host:port</c>; host is an IP address, <c>localhost</c> (loopback) or <c>*</c>/<c>+</c> (any).</summary>
    public static bool TryParse(string url, out ListenAddress? address, out string? error)
    {
        address = null;
        error = null;
        var normalized = url.Replace("://*", "://0.0.0.0", StringComparison.Ordinal).Replace("://+", "://0.0.0.0", StringComparison.Ordinal);
        if (!Uri.TryCreate(normalized, UriKind.Absolute, out var uri) || (uri.Scheme != "http" && uri.Scheme != "https"))
        {
            error = "not an http:// or https:// URL";
            return false;
        }

        if (uri.AbsolutePath != "/" || !string.IsNullOrEmpty(uri.Query))
        {
            error = "a listen address has no path";
            return false;
        }

        IPAddress ip;
        if (uri.IsLoopback && uri.HostNameType == UriHostNameType.Dns)
        {
            ip = IPAddress.Loopback;
        }
        else if (!IPAddress.TryParse(uri.Host.Trim('[', ']'), out ip!))
        {
            error = $"host '{uri.Host}' is not an IP address or localhost";
            return false;
        }

        address = new ListenAddress(uri.Scheme == "https", ip, uri.Port);
        return true;
    }
}
