using System.Net;
using System.Security.Cryptography;
using Freight.Server.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>
/// A real Freight server for one test class: Kestrel on 127.0.0.1 port 0 (http:// for HTTP/1.1,
/// https:// for HTTP/1.1 and HTTP/2), a fresh data directory deleted at the end, and an HttpClient
/// that trusts exactly the server's in-memory certificate.
/// </summary>
public abstract class ServerHarness : IAsyncLifetime
{
    private readonly string[] _extraArguments;
    private FreightServer? _server;
    private HttpClient? _client;

    protected ServerHarness(params string[] extraArguments)
    {
        _extraArguments = extraArguments;
        DataDirectory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
    }

    /// <summary>A fresh directory of the fixture's own (a derived fixture may put it elsewhere, on a tmpfs say).</summary>
    public string DataDirectory { get; protected init; }

    /// <summary>What the in-process server logs (besides its console), for tests that count the lines one request logged.</summary>
    public CapturedLogs Logs { get; } = new();

    /// <summary>Where <c>?sink=file</c> uploads land.</summary>
    public string UploadsDirectory => Path.Combine(DataDirectory, "lab", "uploads");

    public FreightServer Server => _server ?? throw new InvalidOperationException("No FreightServer runs in this process: not started yet, or the fixture runs another app.");

    public HttpClient Client => _client ?? throw new InvalidOperationException("The server is not started.");

    public Uri HttpAddress { get; private set; } = null!;

    public Uri HttpsAddress { get; private set; } = null!;

    /// <summary>Lower-case hex SHA-256 of the server's certificate, as <c>freight serve</c> prints it.</summary>
    public string CertificateFingerprint { get; private set; } = "";

    public async Task InitializeAsync()
    {
        var server = await StartAsync([.. _extraArguments, .. await StartArgumentsAsync()]);
        HttpAddress = server.HttpAddress;
        HttpsAddress = server.HttpsAddress;
        CertificateFingerprint = server.CertificateFingerprint;
        _client = CreatePinnedClient(CertificateFingerprint);
    }

    public async Task DisposeAsync()
    {
        _client?.Dispose();
        await StopAsync();
        if (Directory.Exists(DataDirectory))
        {
            Directory.Delete(DataDirectory, recursive: true);
        }

        await AfterStopAsync();
    }

    /// <summary>
    /// Starts the server under test with <paramref name="arguments"/> (the fixture's configuration) and returns where it
    /// listens: <c>freight serve</c>'s host in this process, with its data in <see cref="DataDirectory"/>, unless a
    /// fixture runs another app (the sample, in a child process) with the same arguments.
    /// </summary>
    protected virtual async Task<ListeningServer> StartAsync(string[] arguments)
    {
        _server = FreightServer.Create(
        [
            "--urls", "http://127.0.0.1:0;https://127.0.0.1:0",
            "--data-dir", DataDirectory,
            .. arguments,
        ], builder =>
        {
            builder.Logging.AddProvider(Logs);
            if (ReplaceServices is { } replace)
            {
                builder.Host.UseServiceProviderFactory(new ReplacingServiceProviderFactory(replace));
            }
        });
        MapRoutes(_server.App);
        await _server.StartAsync();
        return new ListeningServer(
            new Uri(_server.Urls.Single(url => url.StartsWith("http://", StringComparison.Ordinal))),
            new Uri(_server.Urls.Single(url => url.StartsWith("https://", StringComparison.Ordinal))),
            SelfSignedCertificate.Fingerprint(_server.Certificate!));
    }

    /// <summary>Stops what <see cref="StartAsync"/> started.</summary>
    protected virtual async Task StopAsync()
    {
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }

    /// <summary>Routes of the test's own beside Freight's, mapped before the server starts (a user's app, in effect).</summary>
    protected virtual void MapRoutes(Microsoft.AspNetCore.Builder.WebApplication app)
    {
    }

    /// <summary>
    /// Changes to the server's services once it registered all of its own, just before its container is built (a store
    /// wrapped, a clock replaced): a test's seam, for what no option reaches. Null: none.
    /// </summary>
    protected virtual Action<IServiceCollection>? ReplaceServices => null;

    /// <summary>Arguments only known at start (a bucket made for this fixture, say), added after the constructor's.</summary>
    protected virtual Task<string[]> StartArgumentsAsync() => Task.FromResult<string[]>([]);

    /// <summary>Runs once the server has stopped: releases what <see cref="StartArgumentsAsync"/> acquired.</summary>
    protected virtual Task AfterStopAsync() => Task.CompletedTask;

    /// <summary>An HttpClient that accepts only the certificate whose SHA-256 is <paramref name="fingerprint"/>.</summary>
    public static HttpClient CreatePinnedClient(string fingerprint, Action<string>? onCertificate = null)
    {
        var handler = new SocketsHttpHandler();
        handler.SslOptions.RemoteCertificateValidationCallback = (_, certificate, _, _) =>
        {
            if (certificate is null)
            {
                return false;
            }

            var presented = Convert.ToHexStringLower(certificate.GetCertHash(HashAlgorithmName.SHA256));
            onCertificate?.Invoke(presented);
            return presented == fingerprint;
        };
        return new HttpClient(handler) { Timeout = TimeSpan.FromMinutes(2) };
    }

    /// <summary>A request for <paramref name="pathAndQuery"/> in exactly <paramref name="protocol"/> (no downgrade).</summary>
    public HttpRequestMessage Request(HttpMethod method, Protocol protocol, string pathAndQuery) => new(method, new Uri(Address(protocol), pathAndQuery))
    {
        Version = protocol == Protocol.Http2 ? HttpVersion.Version20 : HttpVersion.Version11,
        VersionPolicy = HttpVersionPolicy.RequestVersionExact,
    };

    public Uri Address(Protocol protocol) => protocol == Protocol.Http2 ? HttpsAddress : HttpAddress;

    /// <summary>Every file under the data directory's upload folder, temp files included.</summary>
    public string[] UploadedFiles() =>
        Directory.Exists(UploadsDirectory) ? Directory.GetFiles(UploadsDirectory, "*", SearchOption.AllDirectories) : [];

    /// <summary>In-progress writes anywhere under the data directory.</summary>
    public string[] TempFiles() =>
        Directory.Exists(DataDirectory) ? Directory.GetFiles(DataDirectory, "*.freight-tmp", SearchOption.AllDirectories) : [];

    /// <summary>Asserts the server still answers: a one-byte download over each protocol.</summary>
    public async Task AssertServingAsync()
    {
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            using var request = Request(HttpMethod.Get, protocol, "/lab/download/bytes?size=1");
            using var response = await Client.SendAsync(request);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(Payloads.Bytes(1), await response.Content.ReadAsByteArrayAsync());
        }
    }
}

/// <summary>The host's own container, built once <c>replace</c> has changed what the server registered.</summary>
internal sealed class ReplacingServiceProviderFactory(Action<IServiceCollection> replace) : IServiceProviderFactory<IServiceCollection>
{
    public IServiceCollection CreateBuilder(IServiceCollection services)
    {
        replace(services);
        return services;
    }

    public IServiceProvider CreateServiceProvider(IServiceCollection containerBuilder) => containerBuilder.BuildServiceProvider();
}

/// <summary>A server with the default options (4 GiB body limit).</summary>
public sealed class LabServer : ServerHarness;

/// <summary>A server whose request bodies are limited to 1 MiB.</summary>
public sealed class OneMiBLimitServer() : ServerHarness("--max-body-bytes", "1048576")
{
    public const int Limit = 1024 * 1024;
}

/// <summary>Where a started server listens: http:// (HTTP/1.1), https:// (HTTP/1.1 and HTTP/2), and its certificate's SHA-256.</summary>
public sealed record ListeningServer(Uri HttpAddress, Uri HttpsAddress, string CertificateFingerprint);
