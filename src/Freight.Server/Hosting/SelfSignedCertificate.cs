using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Freight.Server.Hosting;

/// <summary>
/// The HTTPS certificate: generated in memory at start (no file, no dev-certs), valid for
/// localhost and the loopback addresses. Clients pin it by the SHA-256 the server prints.
/// </summary>
public static class SelfSignedCertificate
{
    /// <summary>Creates a fresh ECDSA P-256 certificate valid for a week.</summary>
    public static X509Certificate2 Create()
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=freight-localhost", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddDnsName("localhost");
        names.AddIpAddress(IPAddress.Loopback);
        names.AddIpAddress(IPAddress.IPv6Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature, true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], false));
        var now = DateTimeOffset.UtcNow;
        using var certificate = request.CreateSelfSigned(now.AddMinutes(-5), now.AddDays(7));
        // Round-trip through PKCS#12 so the private key is usable by SslStream on every platform.
        return X509CertificateLoader.LoadPkcs12(certificate.Export(X509ContentType.Pkcs12), null);
    }

    /// <summary>
    /// The certificate's public key as curl pins it (<c>--pinnedpubkey sha256//BASE64</c>): the SHA-256 of its
    /// SubjectPublicKeyInfo, which the certificate's own fingerprint is not.
    /// </summary>
    public static string PublicKeyPin(X509Certificate2 certificate)
    {
        ArgumentNullException.ThrowIfNull(certificate);
        return "sha256//" + Convert.ToBase64String(SHA256.HashData(certificate.PublicKey.ExportSubjectPublicKeyInfo()));
    }

    /// <summary>The certificate's SHA-256 fingerprint as lower-case hex, the form <c>freight serve</c> prints.</summary>
    public static string Fingerprint(X509Certificate2 certificate)
    {
        ArgumentNullException.ThrowIfNull(certificate);
        return Convert.ToHexStringLower(certificate.GetCertHash(HashAlgorithmName.SHA256));
    }
}
