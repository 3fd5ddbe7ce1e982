using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// <c>freight serve</c> with the operator's certificate (<c>Kestrel:Certificates:Default</c>, the key every ASP.NET Core
/// app reads): PEM with its key beside it or in the same file, encrypted PEM, PKCS#12 with a password. The certificate a
/// client is shown is the file's; a file serve cannot use stops it with one <c>error:</c> line and exit code 2.
/// </summary>
public sealed class ServeCertificateTests : IDisposable
{
    private const string Key = "--Kestrel:Certificates:Default:";

    private readonly string _directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));

    public ServeCertificateTests() => Directory.CreateDirectory(_directory);

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    public static TheoryData<string> Forms => ["pem-and-key", "pem-with-key-inside", "encrypted-pem", "pfx"];

    [Theory]
    [MemberData(nameof(Forms))]
    public async Task Serve_CertificateFile_PresentsItOverHttp11AndHttp2(string form)
    {
        using var certificate = NewCertificate("CN=files.example.test");
        var settings = Write(certificate, form);
        var expected = Convert.ToHexStringLower(certificate.GetCertHash(HashAlgorithmName.SHA256));

        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "https://127.0.0.1:0", "--data-dir", "data", .. settings]);
        var lines = await freight.ReadUntilListeningAsync(1);

        Assert.Contains($"certificate-sha256: {expected}", lines);
        // curl pins the key, not the certificate: --pinnedpubkey sha256//BASE64 of the SubjectPublicKeyInfo.
        Assert.Contains($"pinnedpubkey: sha256//{Convert.ToBase64String(SHA256.HashData(certificate.PublicKey.ExportSubjectPublicKeyInfo()))}", lines);
        Assert.Contains(lines, line => line.StartsWith("certificate: CN=files.example.test, valid until ", StringComparison.Ordinal));
        var url = new Uri(Assert.Single(lines, l => l.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]);
        string? presented = null;
        using var client = ServerHarness.CreatePinnedClient(expected, shown => presented = shown);
        foreach (var version in new[] { HttpVersion.Version11, HttpVersion.Version20 })
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(url, "/lab/download/bytes?size=100000")) { Version = version, VersionPolicy = HttpVersionPolicy.RequestVersionExact };
            using var response = await client.SendAsync(request);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(Payloads.Hash(100000), Payloads.Hash(await response.Content.ReadAsByteArrayAsync()));
        }

        Assert.Equal(expected, presented);
        Assert.Equal(0, await freight.TerminateAsync());
    }

    [Fact]
    public async Task Serve_NoCertificateFile_MakesOneInMemoryAndSaysNothingOfAFile()
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "https://127.0.0.1:0", "--data-dir", "data"]);
        var lines = await freight.ReadUntilListeningAsync(1);

        Assert.Single(lines, l => l.StartsWith("certificate-sha256: ", StringComparison.Ordinal));
        Assert.DoesNotContain(lines, l => l.StartsWith("certificate: ", StringComparison.Ordinal));
        Assert.Equal(0, await freight.TerminateAsync());
    }

    [Theory]
    [InlineData("missing", "is not a certificate serve can use: Could not find file")]
    [InlineData("no-key", "holds no private key")]
    [InlineData("wrong-password", "is not a certificate serve can use")]
    [InlineData("store", "Kestrel:Certificates:Default:Subject is not read by freight serve")]
    [InlineData("key-alone", "Kestrel:Certificates:Default:Path is not set")]
    public async Task Serve_CertificateItCannotUse_Exits2WithOneLineNamingTheKey(string problem, string says)
    {
        using var certificate = NewCertificate("CN=files.example.test");
        string[] settings = problem switch
        {
            "missing" => [Key + "Path", Path.Combine(_directory, "nowhere.pem")],
            "no-key" => [Key + "Path", WriteText("cert-only.pem", certificate.ExportCertificatePem())],
            "wrong-password" => [.. Write(certificate, "pfx")[..2], Key + "Password", "not-the-password"],
            "store" => [Key + "Subject", "files.example.test"],
            _ => [Key + "KeyPath", WriteText("alone.key", certificate.GetECDsaPrivateKey()!.ExportPkcs8PrivateKeyPem())],
        };

        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "https://127.0.0.1:0", "--data-dir", "data", .. settings]);
        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("error: Kestrel:Certificates:Default:", line, StringComparison.Ordinal);
        Assert.Contains(says, line, StringComparison.Ordinal);
    }

    /// <summary>A certificate with only http:// addresses was silently unused: the operator meant to serve HTTPS.</summary>
    [Fact]
    public async Task Serve_CertificateWithNoHttpsAddress_Exits2SayingNoAddressIsHttps()
    {
        using var certificate = NewCertificate("CN=files.example.test");
        var settings = Write(certificate, "pem-and-key");

        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0;h2c://127.0.0.1:0", "--data-dir", "data", .. settings]);
        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.Equal(
            $"error: Kestrel:Certificates:Default:Path '{settings[1]}' names a certificate but no --urls address is https://: add one (--urls \"http://…;https://…\"), or leave the certificate out.",
            stderr.TrimEnd());
    }

    /// <summary>
    /// A certificate file that does not exist, with only http:// addresses: refused for the address, which is what is
    /// wrong with the run (a certificate with nothing to serve it on), and the file is not opened.
    /// </summary>
    [Fact]
    public async Task Serve_MissingCertificateWithNoHttpsAddress_Exits2SayingNoAddressIsHttps()
    {
        var missing = Path.Combine(_directory, "nowhere.pem");

        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data", Key + "Path", missing]);
        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.Equal(
            $"error: Kestrel:Certificates:Default:Path '{missing}' names a certificate but no --urls address is https://: add one (--urls \"http://…;https://…\"), or leave the certificate out.",
            stderr.TrimEnd());
    }

    private static X509Certificate2 NewCertificate(string subject)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest(subject, key, HashAlgorithmName.SHA256);
        var now = DateTimeOffset.UtcNow;
        using var made = request.CreateSelfSigned(now.AddMinutes(-5), now.AddDays(30));
        return X509CertificateLoader.LoadPkcs12(made.Export(X509ContentType.Pkcs12), null);
    }

    /// <summary>The certificate written as <paramref name="form"/>; the serve arguments that name it.</summary>
    private string[] Write(X509Certificate2 certificate, string form)
    {
        var key = certificate.GetECDsaPrivateKey()!;
        return form switch
        {
            "pem-and-key" => [Key + "Path", WriteText("server.pem", certificate.ExportCertificatePem()), Key + "KeyPath", WriteText("server.key", key.ExportPkcs8PrivateKeyPem())],
            "pem-with-key-inside" => [Key + "Path", WriteText("server.pem", certificate.ExportCertificatePem() + "\n" + key.ExportPkcs8PrivateKeyPem())],
            "encrypted-pem" =>
            [
                Key + "Path", WriteText("server.pem", certificate.ExportCertificatePem()),
                Key + "KeyPath", WriteText("server.key", key.ExportEncryptedPkcs8PrivateKeyPem("s3cret", new PbeParameters(PbeEncryptionAlgorithm.Aes256Cbc, HashAlgorithmName.SHA256, 100_000))),
                Key + "Password", "s3cret",
            ],
            _ => [Key + "Path", WriteBytes("server.pfx", certificate.Export(X509ContentType.Pkcs12, "s3cret")), Key + "Password", "s3cret"],
        };
    }

    private string WriteText(string name, string text) => WriteBytes(name, System.Text.Encoding.ASCII.GetBytes(text));

    private string WriteBytes(string name, byte[] bytes)
    {
        var path = Path.Combine(_directory, name);
        File.WriteAllBytes(path, bytes);
        return path;
    }
}
