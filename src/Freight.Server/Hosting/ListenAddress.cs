using System.Net;

namespace Freight.Server.Hosting;

/// <summary>
/// One address from <see cref="FreightServerOptions.Urls"/>: <c>http://</c> (HTTP/1.1), <c>https://</c> (HTTP/1.1
/// and HTTP/2 by ALPN) or <c>h2c://</c> (cleartext HTTP/2 with prior knowledge, RFC 9113 §3.3: no HTTP/1.1).
/// </summary>
public sealed record ListenAddress(bool Https, IPAddress Address, int Port, bool H2c = false)
{
    /// <summary>The scheme of a cleartext HTTP/2 (prior knowledge) address.</summary>
    public const string H2cScheme = "h2c";

    /// <summary>Splits a semicolon- or comma-separated URL list.</summary>
    public static string[] SplitUrls(string urls) =>
        urls.Split([';', ','], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);

    /// <summary>Parses <c>http(s)://host:port</c> or <c>h2c://host:port</c>; host is an IP address, <c>localhost</c> (loopback) or <c>*</c>/<c>+</c> (any).</summary>
    public static bool TryParse(string url, out ListenAddress? address, out string? error)
    {
        address = null;
        error = null;
        var normalized = url.Replace("://*", "://0.0.0.0", StringComparison.Ordinal).Replace("://+", "://0.0.0.0", StringComparison.Ordinal);
        if (!Uri.TryCreate(normalized, UriKind.Absolute, out var uri) || (uri.Scheme != "http" && uri.Scheme != "https" && uri.Scheme != H2cScheme))
        {
            error = "not an http://, https:// or h2c:// URL";
            return false;
        }

        if (uri.AbsolutePath is not ("/" or "") || !string.IsNullOrEmpty(uri.Query))
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

        if (uri.Port < 0)
        {
            error = "an h2c:// address needs a port";
            return false;
        }

        address = new ListenAddress(uri.Scheme == "https", ip, uri.Port, uri.Scheme == H2cScheme);
        return true;
    }
}
