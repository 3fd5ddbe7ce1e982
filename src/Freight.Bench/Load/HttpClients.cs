using System.Net;
using System.Net.Security;
using System.Security.Cryptography;

namespace Freight.Bench.Load;

/// <summary>
/// One HttpClient per protocol, shared by all scenarios. HTTPS trusts exactly the certificate whose
/// SHA-256 the servers printed (pinning), nothing else; without a pin it uses the system's trust.
/// </summary>
public sealed class HttpClients : IDisposable
{
    private readonly HttpClient _client;

    public HttpClients(IReadOnlyCollection<string> pinnedCertificateSha256s)
    {
        ArgumentNullException.ThrowIfNull(pinnedCertificateSha256s);
        var handler = new SocketsHttpHandler
        {
            AutomaticDecompression = DecompressionMethods.None,
            UseCookies = false,
            UseProxy = false,
            PooledConnectionIdleTimeout = TimeSpan.FromMinutes(5),
            // Lets an h2 upload fill the server's window without waiting on acknowledgements per 64 KiB.
            InitialHttp2StreamWindowSize = 16 * 1024 * 1024,
        };

        if (pinnedCertificateSha256s.Count > 0)
        {
            var pins = pinnedCertificateSha256s.Select(pin => pin.ToUpperInvariant()).ToHashSet(StringComparer.Ordinal);
            handler.SslOptions = new SslClientAuthenticationOptions
            {
                RemoteCertificateValidationCallback = (_, certificate, _, _) =>
                    certificate is not null && pins.Contains(Convert.ToHexString(certificate.GetCertHash(HashAlgorithmName.SHA256))),
            };
        }

        _client = new HttpClient(handler) { Timeout = TimeSpan.FromMinutes(10) };
    }

    public HttpClient Client => _client;

    /// <summary>A request for the given protocol ("http/1.1" or "h2"; h2 over http:// is prior-knowledge h2c).</summary>
    public static HttpRequestMessage Request(HttpMethod method, Uri uri, string protocol) => new(method, uri)
    {
        Version = protocol == "h2" ? HttpVersion.Version20 : HttpVersion.Version11,
        VersionPolicy = HttpVersionPolicy.RequestVersionExact,
    };

    public void Dispose() => _client.Dispose();
}
