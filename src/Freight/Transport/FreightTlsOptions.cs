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

    /// <summary>
    /// Send the TLS records on the connection's socket from the thread that encrypted them (a large body's full records
    /// gathered ~64 KiB to a send), instead of Kestrel's path, which copies each record into its socket transport's
    /// output pipe for the transport's send loop to send from another thread. Off by default: it removes the thread
    /// hop (per 2 GiB download, ~107,000 sched_yield calls and ~400 futex calls down to ~700 and ~100) but the server's
    /// CPU per GiB over TLS measured the same (docs/results/2026-11-25-tls-cost.md). Only Kestrel's socket transport
    /// has a socket to send on; another transport keeps Kestrel's path.
    /// </summary>
    public bool SendRecordsOnSocket { get; set; }
}
