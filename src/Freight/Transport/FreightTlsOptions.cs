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
    /// output pipe for the transport's send loop to send from another thread. On by default since 2026-11-27: on the
    /// idle 2-core machine, 1 GiB HTTPS downloads with curl (6 alternating rounds of 3) cost the server 1.27–1.69 s/GiB
    /// on this path against 1.87–2.33 on Kestrel's, at 606–804 against 487–574 MiB/s, every round; the bench's HTTPS
    /// download went from 0.81–0.88× nginx over TLS (MISSED) to 1.01× (docs/results/2026-11-27-tls-send.md). Measured
    /// first at a load of ~10 on 2026-11-25, the two paths had looked the same. Only Kestrel's socket transport has a
    /// socket to send on; another transport keeps Kestrel's path. Off: Kestrel's path.
    /// </summary>
    public bool SendRecordsOnSocket { get; set; } = true;
}
