using System.Net;
using System.Text.RegularExpressions;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// The <c>freight serve</c> contract, checked on the real command in a child process:
/// what it prints, the certificate it serves, its exit codes, and <c>FREIGHT_</c> environment variables.
/// </summary>
public sealed partial class ServeCommandTests : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));

    public ServeCommandTests() => Directory.CreateDirectory(_directory);

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [Fact]
    public async Task Serve_HttpAndHttps_PrintsListeningLinesAndTheFingerprintOfTheServedCertificate()
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0;https://127.0.0.1:0", "--data-dir", "data"]);

        var lines = await freight.ReadUntilListeningAsync(2);

        var fingerprint = Assert.Single(lines, l => l.StartsWith("certificate-sha256: ", StringComparison.Ordinal))["certificate-sha256: ".Length..];
        Assert.Matches(LowerHex64(), fingerprint);
        var urls = lines.Where(l => l.StartsWith("listening: ", StringComparison.Ordinal)).Select(l => new Uri(l["listening: ".Length..])).ToList();
        Assert.Equal(["http", "https"], urls.Select(u => u.Scheme).Order());
        Assert.All(urls, u => Assert.Equal("127.0.0.1", u.Host));
        Assert.All(urls, u => Assert.NotEqual(0, u.Port));

        string? presented = null;
        using var client = ServerHarness.CreatePinnedClient(fingerprint, certificate => presented = certificate);
        foreach (var url in urls)
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(url, "/lab/download/bytes?size=65537"))
            {
                Version = url.Scheme == "https" ? HttpVersion.Version20 : HttpVersion.Version11,
                VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            };
            using var response = await client.SendAsync(request);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(request.Version, response.Version);
            Assert.Equal(Payloads.Hash(65537), Payloads.Hash(await response.Content.ReadAsByteArrayAsync()));
        }

        Assert.Equal(fingerprint, presented);
        Assert.Equal(0, await freight.TerminateAsync());
        Assert.True(Directory.Exists(Path.Combine(_directory, "data")));
    }

    [Fact]
    public async Task Serve_HttpOnly_PrintsNoFingerprint()
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data"]);

        var lines = await freight.ReadUntilListeningAsync(1);

        Assert.DoesNotContain(lines, l => l.StartsWith("certificate-sha256:", StringComparison.Ordinal));
        Assert.Equal(0, await freight.TerminateAsync());
    }

    [Theory]
    [InlineData("--max-body-bytes", "0", "Freight:MaxRequestBodyBytes")]
    [InlineData("--urls", "ftp://x", "Freight:Urls")]
    [InlineData("--Freight:TransportBlockBytes", "100", "Freight:TransportBlockBytes")]
    public async Task Serve_InvalidOption_Exits2NamingTheOption(string option, string value, string named)
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data", option, value]);

        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.StartsWith("error: " + named, stderr, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("FREIGHT_MaxRequestBodyBytes", "0", "Freight:MaxRequestBodyBytes")]
    [InlineData("FREIGHT_Multipart__MaxHeadersBytes", "10", "Freight:Multipart:MaxHeadersBytes")]
    public async Task Serve_InvalidFreightEnvironmentVariable_Exits2NamingTheOption(string variable, string value, string named)
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data"], new Dictionary<string, string> { [variable] = value });

        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.StartsWith("error: " + named, stderr, StringComparison.Ordinal);
    }

    /// <summary>A token given without its index, in the environment as on the command line, is refused: it bound no token and left the files API open.</summary>
    [Fact]
    public async Task Serve_TokenVariableWithoutIndex_Exits2SayingHowToGiveTheList()
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data"], new Dictionary<string, string> { ["FREIGHT_Files__WriteTokens"] = "wtok" });

        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.Equal(
            "error: Freight:Files:WriteTokens is a list: give each token with an index, --Freight:Files:WriteTokens:0 TOKEN, or FREIGHT_Files__WriteTokens__0=TOKEN (a JSON array in appsettings.json).",
            stderr.TrimEnd());
    }

    /// <summary>A misspelt log level crashed the command with the host's stack and exit code 1.</summary>
    [Fact]
    public async Task Serve_UnknownLogLevel_Exits2WithOneErrorLine()
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data", "--Logging:LogLevel:Default", "Informaton"]);

        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.Equal(
            "error: Logging:LogLevel:Default: 'Informaton' is not a log level (Trace, Debug, Information, Warning, Error, Critical, None).",
            stderr.TrimEnd());
    }

    /// <summary>
    /// The appsettings.json where serve runs is read, above the defaults shipped beside the binary (whose
    /// Logging:LogLevel:Default is Warning: a level of the working directory's own that loses to it would not be
    /// checked) and below FREIGHT_ variables and the command line. It was ignored: the host reads the content root's.
    /// </summary>
    [Fact]
    public async Task Serve_AppsettingsInTheWorkingDirectory_IsReadAboveTheShippedDefaults()
    {
        await File.WriteAllTextAsync(Path.Combine(_directory, "appsettings.json"), """{ "Logging": { "LogLevel": { "Default": "Informaton" } } }""");
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data"]);

        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.Equal(
            "error: Logging:LogLevel:Default: 'Informaton' is not a log level (Trace, Debug, Information, Warning, Error, Critical, None).",
            stderr.TrimEnd());
    }

    [Fact]
    public async Task Serve_AppsettingsInTheWorkingDirectory_ConfiguresTheServerBelowEnvironmentAndCommandLine()
    {
        await File.WriteAllTextAsync(
            Path.Combine(_directory, "appsettings.json"),
            """{ "Freight": { "Urls": "http://127.0.0.1:0", "DataDirectory": "from-json", "MaxRequestBodyBytes": 1, "MaxLabPayloadBytes": 1 } }""");
        await using var freight = FreightProcess.StartServe(
            _directory,
            ["--max-body-bytes", "16"],
            new Dictionary<string, string> { ["FREIGHT_MaxLabPayloadBytes"] = "2", ["FREIGHT_MaxRequestBodyBytes"] = "8" });

        var url = new Uri(Assert.Single(await freight.ReadUntilListeningAsync(1))["listening: ".Length..]);

        Assert.True(Directory.Exists(Path.Combine(_directory, "from-json", "lab")));
        using var client = new HttpClient();
        using (var fromEnvironment = await client.GetAsync(new Uri(url, "/lab/download/file?size=2")))
        {
            Assert.Equal(HttpStatusCode.OK, fromEnvironment.StatusCode);
        }

        using (var fromCommandLine = await client.PostAsync(new Uri(url, "/lab/upload/freight"), new ByteArrayContent(Payloads.Bytes(16))))
        {
            Assert.Equal(HttpStatusCode.OK, fromCommandLine.StatusCode);
        }

        Assert.Equal(0, await freight.TerminateAsync());
    }

    [Fact]
    public async Task Serve_AppsettingsInTheWorkingDirectoryNotJson_Exits2NamingTheFile()
    {
        var file = Path.Combine(_directory, "appsettings.json");
        await File.WriteAllTextAsync(file, "{ \"Freight\": { \"Lab\": false, }\n  \"Logging\": {} }\n");
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data"]);

        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.Equal(
            $"error: {file} is not valid JSON at line 2, byte 3: '\"' is invalid after a value. Expected either ',', '}}', or ']'.",
            stderr.TrimEnd());
    }

    /// <summary>
    /// The binary folder's appsettings.json (build output, read by the host as it is built) gave the loader's stack; now
    /// the same one line as the working directory's. A copy of the binary's folder, so no other test reads the broken file.
    /// </summary>
    [Fact]
    public async Task Serve_AppsettingsBesideTheBinaryNotJson_Exits2NamingTheFile()
    {
        var binary = Path.Combine(_directory, "bin");
        Directory.CreateDirectory(binary);
        foreach (var each in Directory.GetFiles(AppContext.BaseDirectory))
        {
            File.Copy(each, Path.Combine(binary, Path.GetFileName(each)));
        }

        foreach (var folder in Directory.GetDirectories(AppContext.BaseDirectory))
        {
            Directory.CreateSymbolicLink(Path.Combine(binary, Path.GetFileName(folder)), folder);
        }

        var file = Path.Combine(binary, "appsettings.json");
        await File.WriteAllTextAsync(file, "{ \"Logging\": { \"LogLevel\": {}, }\n  \"Freight\": {} }\n");
        var work = Directory.CreateDirectory(Path.Combine(_directory, "work")).FullName;
        await using var freight = FreightProcess.StartApp(work, Path.Combine(binary, "Freight.Cli.dll"), ["serve", "--urls", "http://127.0.0.1:0", "--data-dir", "data"]);

        var (exitCode, stderr) = await freight.WaitForExitAsync();

        Assert.Equal(2, exitCode);
        Assert.Equal(
            $"error: {file} is not valid JSON at line 2, byte 3: '\"' is invalid after a value. Expected either ',', '}}', or ']'.",
            stderr.TrimEnd());
    }

    /// <summary>
    /// The tests' own variables (the soak's, the golden files') are FREIGHTTEST_, which serve does not read: under
    /// their old FREIGHT_ names a serve in the same environment refused them as settings it has no option for.
    /// </summary>
    [Fact]
    public async Task Serve_TestVariables_AreNoSettingsOfServe()
    {
        var testVariables = new Dictionary<string, string>
        {
            ["FREIGHTTEST_SOAK_SECONDS"] = "600",
            ["FREIGHTTEST_SOAK_REPORT"] = _directory,
            ["FREIGHTTEST_UPDATE_GOLDEN"] = "1",
        };
        await using (var freight = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data"], testVariables))
        {
            Assert.Single(await freight.ReadUntilListeningAsync(1));
            Assert.Equal(0, await freight.TerminateAsync());
        }

        await using var old = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", "data"], new Dictionary<string, string> { ["FREIGHT_SOAK_SECONDS"] = "600" });
        var (exitCode, stderr) = await old.WaitForExitAsync();
        Assert.Equal(2, exitCode);
        Assert.StartsWith("error: Freight:SOAK_SECONDS is not an option of serve", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Serve_FreightEnvironmentVariables_ConfigureTheServer()
    {
        await using var freight = FreightProcess.StartServe(_directory, [], new Dictionary<string, string>
        {
            ["FREIGHT_Urls"] = "http://127.0.0.1:0",
            ["FREIGHT_DataDirectory"] = "from-environment",
        });

        var url = new Uri(Assert.Single(await freight.ReadUntilListeningAsync(1))["listening: ".Length..]);

        Assert.Equal("127.0.0.1", url.Host);
        using var client = new HttpClient();
        using var response = await client.GetAsync(new Uri(url, "/lab/download/file?size=1"));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.True(Directory.Exists(Path.Combine(_directory, "from-environment", "lab", "payloads")));
        Assert.Equal(0, await freight.TerminateAsync());
    }

    [Fact]
    public async Task Serve_CommandLineAndEnvironmentDisagree_CommandLineWins()
    {
        await using var freight = FreightProcess.StartServe(
            _directory,
            ["--urls", "http://127.0.0.1:0", "--data-dir", "data", "--max-body-bytes", "16"],
            new Dictionary<string, string> { ["FREIGHT_MaxRequestBodyBytes"] = "0" });

        var url = new Uri(Assert.Single(await freight.ReadUntilListeningAsync(1))["listening: ".Length..]);

        using var client = new HttpClient();
        using (var atLimit = await client.PostAsync(new Uri(url, "/lab/upload/freight"), new ByteArrayContent(Payloads.Bytes(16))))
        {
            Assert.Equal(HttpStatusCode.OK, atLimit.StatusCode);
        }

        using (var overLimit = await client.PostAsync(new Uri(url, "/lab/upload/freight"), new ByteArrayContent(Payloads.Bytes(17))))
        {
            await ProblemAssert.IsProblemAsync(overLimit, HttpStatusCode.RequestEntityTooLarge);
        }

        Assert.Equal(0, await freight.TerminateAsync());
    }

    [GeneratedRegex("^[0-9a-f]{64}$")]
    private static partial Regex LowerHex64();
}
