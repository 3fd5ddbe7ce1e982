using Freight.Server.Hosting;

namespace Freight.Bench.Tests.Client;

/// <summary>
/// A real <c>freight serve</c> (in process) on http:// and https:// 127.0.0.1 port 0 with a fresh data
/// directory, and a scratch directory for the client's local files; both are deleted at the end.
/// </summary>
public abstract class FilesServer : IAsyncLifetime
{
    private readonly string[] _extraArguments;
    private readonly string _dataDirectory = Path.Combine(Path.GetTempPath(), "freight-client-tests", Guid.NewGuid().ToString("N"));
    private FreightServer? _server;

    protected FilesServer(params string[] extraArguments) => _extraArguments = extraArguments;

    public Uri HttpAddress { get; private set; } = null!;

    public Uri HttpsAddress { get; private set; } = null!;

    /// <summary>Hex SHA-256 of the server's certificate, as <c>freight serve</c> prints it.</summary>
    public string CertificateSha256 { get; private set; } = "";

    /// <summary>Where tests keep the client's files.</summary>
    public string LocalDirectory { get; } = Directory.CreateTempSubdirectory("freight-client-local-").FullName;

    /// <summary>The files API address of <paramref name="name"/> (over http:// unless <paramref name="https"/>).</summary>
    public string Url(string name, bool https = false) => new Uri(https ? HttpsAddress : HttpAddress, "/files/" + name).ToString();

    /// <summary>A path in <see cref="LocalDirectory"/>.</summary>
    public string Local(string name) => Path.Combine(LocalDirectory, name);

    public async Task InitializeAsync()
    {
        _server = FreightServer.Create(["--urls", "http://127.0.0.1:0;https://127.0.0.1:0", "--data-dir", _dataDirectory, .. _extraArguments]);
        await _server.StartAsync();
        HttpAddress = new Uri(_server.Urls.Single(url => url.StartsWith("http://", StringComparison.Ordinal)));
        HttpsAddress = new Uri(_server.Urls.Single(url => url.StartsWith("https://", StringComparison.Ordinal)));
        CertificateSha256 = SelfSignedCertificate.Fingerprint(_server.Certificate!);
    }

    public async Task DisposeAsync()
    {
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }

        foreach (var directory in new[] { _dataDirectory, LocalDirectory })
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }
}

/// <summary>A files API open to everyone (no tokens configured).</summary>
public sealed class OpenFilesServer : FilesServer;

/// <summary>A files API that needs bearer tokens (one to read, one to write) and stores files up to <see cref="MaxFileBytes"/>.</summary>
public sealed class GuardedFilesServer() : FilesServer(
    "--Freight:Files:ReadTokens:0", ReadToken,
    "--Freight:Files:WriteTokens:0", WriteToken,
    "--Freight:Files:MaxFileBytes", "100000")
{
    public const string ReadToken = "read-5ecret";

    public const string WriteToken = "write-5ecret";

    public const int MaxFileBytes = 100_000;
}
