using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using Microsoft.Extensions.Configuration;

namespace Freight.Server.Hosting;

/// <summary>
/// The certificate <c>freight serve</c>'s https:// addresses present: the file named by <c>Kestrel:Certificates:Default</c>
/// (the key every ASP.NET Core app reads: <c>Path</c>, and <c>KeyPath</c> / <c>Password</c> as the file needs), else one
/// made in memory (<see cref="SelfSignedCertificate"/>). Serve reads the file itself, before a port is bound, so a
/// missing file, a wrong password or a certificate without its key is one <c>error:</c> line naming the key, not the
/// stack Kestrel's own loader throws at start.
/// </summary>
internal static class ServerCertificate
{
    public const string Section = "Kestrel:Certificates:Default";

    /// <summary>The keys of <see cref="Section"/> serve reads; Kestrel's others (a certificate store) are refused.</summary>
    private static readonly string[] s_keys = ["Path", "KeyPath", "Password"];

    /// <summary>The certificate to serve, or null with the reason added to <paramref name="failures"/>.</summary>
    public static X509Certificate2? Load(IConfiguration configuration, List<string> failures)
    {
        var section = configuration.GetSection(Section);
        foreach (var other in section.GetChildren().Where(child => !s_keys.Contains(child.Key, StringComparer.OrdinalIgnoreCase)))
        {
            failures.Add($"{Section}:{other.Key} is not read by freight serve: it loads a certificate from a file ({Section}:Path, with KeyPath and Password as the file needs).");
        }

        var path = section["Path"];
        var keyPath = section["KeyPath"];
        var password = section["Password"];
        if (string.IsNullOrEmpty(path))
        {
            if (!string.IsNullOrEmpty(keyPath) || !string.IsNullOrEmpty(password))
            {
                failures.Add($"{Section}:Path is not set: KeyPath and Password go with the certificate file it names.");
            }

            return failures.Count > 0 ? null : SelfSignedCertificate.Create();
        }

        X509Certificate2 certificate;
        try
        {
            certificate = IsPkcs12(path) && string.IsNullOrEmpty(keyPath)
                ? X509CertificateLoader.LoadPkcs12FromFile(path, password)
                : string.IsNullOrEmpty(password)
                    ? X509Certificate2.CreateFromPemFile(path, NullIfEmpty(keyPath))
                    : X509Certificate2.CreateFromEncryptedPemFile(path, password, NullIfEmpty(keyPath));
        }
        catch (CryptographicException) when (string.IsNullOrEmpty(keyPath) && !IsPkcs12(path) && IsCertificateAlone(path))
        {
            failures.Add(NoPrivateKey(path));
            return null;
        }
        catch (Exception unreadable) when (unreadable is IOException or UnauthorizedAccessException or CryptographicException or ArgumentException)
        {
            failures.Add($"{Section}:Path '{path}'{(string.IsNullOrEmpty(keyPath) ? "" : $" (KeyPath '{keyPath}')")} is not a certificate serve can use: {unreadable.Message}");
            return null;
        }

        if (!certificate.HasPrivateKey)
        {
            failures.Add(NoPrivateKey(path));
            certificate.Dispose();
            return null;
        }

        // PEM keys are ephemeral; a PKCS#12 round trip gives SslStream a key it can use on every platform.
        return IsPkcs12(path) ? certificate : Reloaded(certificate);
    }

    /// <summary>What serve prints about a certificate from a file: its subject and when it expires (an expired one still starts, as Kestrel would).</summary>
    public static string Describe(X509Certificate2 certificate) =>
        $"{certificate.Subject}, valid until {certificate.NotAfter.ToUniversalTime():yyyy-MM-dd HH:mm} UTC{(certificate.NotAfter < DateTime.Now ? " (EXPIRED)" : "")}";

    private static string NoPrivateKey(string path) => $"{Section}:Path '{path}' holds no private key: name the key's file with {Section}:KeyPath.";

    /// <summary>Whether the PEM file holds a certificate without its key (the usual way a key is forgotten).</summary>
    private static bool IsCertificateAlone(string path)
    {
        try
        {
            using var alone = X509CertificateLoader.LoadCertificateFromFile(path);
            return true;
        }
        catch (CryptographicException)
        {
            return false;
        }
    }

    private static bool IsPkcs12(string path) =>
        path.EndsWith(".pfx", StringComparison.OrdinalIgnoreCase) || path.EndsWith(".p12", StringComparison.OrdinalIgnoreCase);

    private static string? NullIfEmpty(string? value) => string.IsNullOrEmpty(value) ? null : value;

    private static X509Certificate2 Reloaded(X509Certificate2 certificate)
    {
        using (certificate)
        {
            return X509CertificateLoader.LoadPkcs12(certificate.Export(X509ContentType.Pkcs12), null);
        }
    }
}
