using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Https;

namespace Freight.Transport;

/// <summary>
/// HTTPS on a Kestrel listener the way Freight measured it fastest: Kestrel's own TLS connection middleware
/// (ALPN h2 and http/1.1 from the listener's protocols), TLS 1.3 or 1.2 only, AES-128-GCM preferred.
/// </summary>
/// <remarks>
/// Kestrel's TLS middleware does the handshake, ALPN and the records: the lead that it writes a TLS record per
/// 4 KiB pipe segment (aspnetcore#30545) does not hold here. Behind a byte relay, every large response Kestrel
/// sent over HTTP/1.1 and HTTP/2 went out in full 16 KiB records (16,401 bytes on the wire, TLS 1.3), with
/// Freight's 64 KiB transport blocks and with Kestrel's stock 4 KiB pool alike (docs/results/2026-11-25-tls-h2.md).
/// Under it, <see cref="FreightTlsOptions.SendRecordsOnSocket"/> (the default) sends those records on the socket
/// from the thread that encrypted them, instead of through the socket transport's output pipe and send loop
/// (docs/results/2026-11-27-tls-send.md).
/// </remarks>
public static class FreightHttpsExtensions
{
    /// <summary>TLS 1.3 suites in the order <see cref="FreightTlsOptions.PreferAes128Gcm"/> offers them.</summary>
    private static readonly TlsCipherSuite[] Aes128First =
    [
        TlsCipherSuite.TLS_AES_128_GCM_SHA256,
        TlsCipherSuite.TLS_AES_256_GCM_SHA384,
        TlsCipherSuite.TLS_CHACHA20_POLY1305_SHA256,
        // TLS 1.2 clients: ECDHE with AES-GCM, the same order.
        TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ];

    /// <summary>
    /// Serves HTTPS on <paramref name="listen"/> with <paramref name="certificate"/>. Set
    /// <see cref="ListenOptions.Protocols"/> first: ALPN offers h2 and http/1.1 from it.
    /// </summary>
    public static ListenOptions UseFreightHttps(this ListenOptions listen, X509Certificate2 certificate, FreightTlsOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(listen);
        ArgumentNullException.ThrowIfNull(certificate);
        var tls = options ?? new FreightTlsOptions();
        // Windows has no CipherSuitesPolicy (PlatformNotSupportedException): Schannel's order stays.
        var cipherSuites = tls.PreferAes128Gcm && !OperatingSystem.IsWindows() ? new CipherSuitesPolicy(Aes128First) : null;
        if (tls.SendRecordsOnSocket)
        {
            // Before UseHttps, so outside it: it sees the socket transport, and the TLS middleware writes to it.
            listen.Use(TlsSocketOutput.Use);
        }

        listen.UseHttps(new HttpsConnectionAdapterOptions
        {
            ServerCertificate = certificate,
            SslProtocols = SslProtocols.Tls13 | SslProtocols.Tls12,
            OnAuthenticate = (_, ssl) => ssl.CipherSuitesPolicy = cipherSuites,
        });
        if (tls.SendRecordsOnSocket)
        {
            listen.Use(TlsSocketOutput.AfterHandshake);
        }

        return listen;
    }
}
