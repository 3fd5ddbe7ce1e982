using System.Buffers;
using System.IO.Hashing;
using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using Freight.Bench.Load;

namespace Freight.Bench.Peers;

/// <summary>
/// <c>peer/nginx-tls</c>: nginx over TLS beside Freight's HTTPS rows of the transfer suite. It serves the bench's
/// payload file (GET) and takes WebDAV PUTs to disk, on a certificate the bench writes for it: ECDSA P-256 and
/// SHA-256 like the one <c>freight serve</c> makes, so both handshakes and both ciphers' choices are alike; the
/// bench's client pins it by its SHA-256.
/// </summary>
public sealed class NginxTlsPeer : IAsyncDisposable
{
    private const string UploadName = "upload.bin";

    private NginxTlsPeer(NginxServer server, string certificateSha256, string payloadName)
    {
        Server = server;
        CertificateSha256 = certificateSha256;
        DownloadAddress = new Uri(server.BaseAddress, payloadName);
        UploadAddress = new Uri(server.DavAddress!, UploadName);
    }

    public NginxServer Server { get; }

    /// <summary>Upper-case hex SHA-256 of nginx's certificate, the pin.</summary>
    public string CertificateSha256 { get; }

    /// <summary>The payload file, served by nginx.</summary>
    public Uri DownloadAddress { get; }

    /// <summary>Where an upload is PUT (replacing the last one).</summary>
    public Uri UploadAddress { get; }

    /// <summary>Null when nginx is not installed (scripts/install-peers.sh).</summary>
    public static async Task<NginxTlsPeer?> StartAsync(ClientPayload payload, string workDirectory, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(payload);
        var work = Path.Combine(workDirectory, "nginx-tls-work");
        Directory.CreateDirectory(work);
        var certificatePath = Path.Combine(work, "certificate.pem");
        var keyPath = Path.Combine(work, "key.pem");
        string pin;
        using (var key = ECDsa.Create(ECCurve.NamedCurves.nistP256))
        {
            var request = new CertificateRequest("CN=freight-bench-nginx", key, HashAlgorithmName.SHA256);
            var names = new SubjectAlternativeNameBuilder();
            names.AddDnsName("localhost");
            names.AddIpAddress(IPAddress.Loopback);
            request.CertificateExtensions.Add(names.Build());
            var now = DateTimeOffset.UtcNow;
            using var certificate = request.CreateSelfSigned(now.AddMinutes(-5), now.AddDays(1));
            await File.WriteAllTextAsync(certificatePath, certificate.ExportCertificatePem(), cancellationToken);
            await File.WriteAllTextAsync(keyPath, key.ExportPkcs8PrivateKeyPem(), cancellationToken);
            pin = Convert.ToHexString(certificate.GetCertHash(HashAlgorithmName.SHA256));
        }

        // The payload file's own directory is the root: the same bytes Freight serves, no copy.
        var server = await Nginx.StartAsync(
            new NginxSiteOptions
            {
                RootDirectory = Path.GetDirectoryName(payload.FilePath)!,
                WorkDirectory = work,
                EnableWebDavPut = true,
                TlsCertificatePath = certificatePath,
                TlsKeyPath = keyPath,
            },
            cancellationToken);
        return server is null ? null : new NginxTlsPeer(server, pin, Path.GetFileName(payload.FilePath));
    }

    /// <summary>Throws <see cref="VerificationException"/> unless the file nginx stored from the last PUT is the payload.</summary>
    public async Task VerifyUploadAsync(ClientPayload payload, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(payload);
        var path = Path.Combine(Server.PutDirectory!, UploadName);
        var hasher = new XxHash128();
        long length = 0;
        var buffer = ArrayPool<byte>.Shared.Rent(1024 * 1024);
        try
        {
            await using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0, useAsync: true);
            int read;
            while ((read = await file.ReadAsync(buffer, cancellationToken)) > 0)
            {
                hasher.Append(buffer.AsSpan(0, read));
                length += read;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        var hash = Freight.Hashing.HashHex.ToHex(hasher.GetCurrentHashAsUInt128());
        if (length != payload.Length || hash != payload.Hash)
        {
            throw new VerificationException($"peer/nginx-tls: nginx stored {length} bytes with XXH3-128 {hash}, not the payload's {payload.Length} with {payload.Hash}.");
        }
    }

    public ValueTask DisposeAsync() => Server.DisposeAsync();
}
