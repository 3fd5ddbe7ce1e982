namespace Freight.Transport;

/// <summary>How <see cref="FreightHttpsExtensions.UseFreightHttps"/> sets up TLS on a listener.</summary>
public sealed class FreightTlsOptions
{
    /// <summary>
    /// Offer TLS 1.3's AES-128-GCM before AES-256-GCM (and ChaCha20 last), and choose by the server's order,
    /// not the client's. OpenSSL clients (curl, .NET's SslStream, browsers on x86) list AES-256-GCM first;
    /// on this project's 2-core VAES machine <c>openssl speed -evp</c> does AES-128-GCM at ~4.2 GB/s and
    /// AES-256-GCM at ~2.9 GB/s on 16 KiB records, and both ends pay the cipher: see
    /// docs/results/2026-11-25-tls-h2.md. Off: the client's first choice, as Kestrel's UseHttps does.
    /// Not on Windows, where .NET cannot set a server's cipher suites.
    /// </summary>
    public bool PreferAes128Gcm { get; set; } = true;
}
