using System.Net;
using System.Net.Http.Headers;
using System.Net.Security;
using System.Security.Cryptography;

namespace Freight.Bench.Client;

/// <summary>
/// The one HttpClient of a put or get: no proxy, no decompression (the bytes on disk are the bytes the
/// digest covers), no cookies, no timeout (a large file takes as long as it takes; Ctrl+C cancels), and for
/// https:// either the system's trust or exactly one pinned certificate.
/// </summary>
internal static class ClientHttp
{
    public static HttpClient Create(string? pinnedCertificateSha256, bool followRedirects)
    {
        var handler = new SocketsHttpHandler
        {
            AutomaticDecompression = DecompressionMethods.None,
            UseCookies = false,
            UseProxy = false,
            // A PUT is never redirected: its body would be sent twice and the target could change under the digest.
            AllowAutoRedirect = followRedirects,
        };

        if (pinnedCertificateSha256 is { } pin)
        {
            handler.SslOptions = new SslClientAuthenticationOptions
            {
                RemoteCertificateValidationCallback = (_, certificate, _, _) =>
                    certificate is not null
                    && string.Equals(Convert.ToHexString(certificate.GetCertHash(HashAlgorithmName.SHA256)), pin, StringComparison.OrdinalIgnoreCase),
            };
        }

        return new HttpClient(handler) { Timeout = Timeout.InfiniteTimeSpan };
    }

    /// <summary>
    /// An HTTP/1.1 request, on https:// too: one large transfer gains nothing from HTTP/2's multiplexing and
    /// would pay its flow-control windows and framing.
    /// </summary>
    public static HttpRequestMessage Request(HttpMethod method, Uri url, string? token)
    {
        var request = new HttpRequestMessage(method, url)
        {
            Version = HttpVersion.Version11,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };

        if (token is not null)
        {
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        }

        return request;
    }
}
