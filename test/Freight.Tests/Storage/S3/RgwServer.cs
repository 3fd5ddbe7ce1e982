using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.RegularExpressions;
using Amazon.Runtime;
using Amazon.S3;
using Amazon.S3.Model;

namespace Freight.Tests.Storage.S3;

/// <summary>
/// A real S3 server for the S3 tests: Ceph's RADOS Gateway on 127.0.0.1, started once per test run with
/// scripts/rgw.sh in a temp directory (memstore: objects in RAM) and stopped on dispose. Installs the
/// packages with scripts/install-rgw.sh when they are missing; that needs root and apt-get, and without
/// them the fixture fails with the script's reason: these tests run in CI and never skip.
/// </summary>
public sealed partial class RgwServer : IAsyncLifetime
{
    // The keys rgw.sh gives the S3 user it creates (its defaults, passed explicitly so both sides agree).
    public const string AccessKey = "ciaccesskey";
    public const string SecretKey = "cisecretkey123";

    // Generous bounds for a child that hangs; install is ~30 s, start ~3 s, stop ~6 s on the CI machine.
    private static readonly TimeSpan InstallTimeout = TimeSpan.FromMinutes(10);
    private static readonly TimeSpan StartTimeout = TimeSpan.FromMinutes(5);
    private static readonly TimeSpan StopTimeout = TimeSpan.FromMinutes(2);

    private readonly ConcurrentDictionary<Type, Lazy<Task<string>>> _buckets = new();
    private string? _scripts;
    private string? _directory;
    private AmazonS3Client? _client;

    /// <summary>The S3 endpoint, e.g. http://127.0.0.1:7480.</summary>
    public Uri Endpoint { get; private set; } = null!;

    /// <summary>A client shared by the tests (the SDK's clients are thread-safe), configured as <see cref="CreateConfig"/>.</summary>
    public AmazonS3Client Client => _client ?? throw new InvalidOperationException("RGW is not started.");

    /// <summary>
    /// What the SDK (v4) needs to talk to RGW (Ceph Pacific 16.2):
    /// <list type="bullet">
    /// <item>ServiceURL plus ForcePathStyle: RGW here has no wildcard DNS for virtual-hosted buckets.</item>
    /// <item>AuthenticationRegion: any region signs; us-east-1 is the one RGW's default zone group answers to.</item>
    /// <item>RequestChecksumCalculation and ResponseChecksumValidation WHEN_REQUIRED: since 4.0 the SDK
    /// otherwise adds a CRC32 to every upload as an aws-chunked trailer (x-amz-trailer,
    /// STREAMING-UNSIGNED-PAYLOAD-TRAILER), which Pacific's RGW rejects (400 XAmzContentSHA256Mismatch)
    /// (see RgwCapabilityTests.PutObject_SdkDefaultChecksums_RgwRejectsTrailer).</item>
    /// </list>
    /// Payload signing needs nothing: over plain HTTP the SDK signs the body (a SHA-256 of a seekable body, or
    /// aws-chunked STREAMING-AWS4-HMAC-SHA256-PAYLOAD chunks), and RGW verifies both.
    /// </summary>
    public AmazonS3Config CreateConfig() => new()
    {
        ServiceURL = Endpoint.ToString(),
        ForcePathStyle = true,
        AuthenticationRegion = "us-east-1",
        RequestChecksumCalculation = RequestChecksumCalculation.WHEN_REQUIRED,
        ResponseChecksumValidation = ResponseChecksumValidation.WHEN_REQUIRED,
    };

    public AmazonS3Client CreateClient(AmazonS3Config config) => new(new BasicAWSCredentials(AccessKey, SecretKey), config);

    /// <summary>The bucket of <paramref name="testClass"/>, created on first use; one per class so classes never see each other's keys.</summary>
    public Task<string> BucketForAsync(Type testClass) =>
        _buckets.GetOrAdd(testClass, type => new Lazy<Task<string>>(() => CreateBucketAsync(type))).Value;

    public async Task InitializeAsync()
    {
        var root = FindRepositoryRoot()
            ?? throw new InvalidOperationException($"No Freight.slnx above {AppContext.BaseDirectory}: the S3 tests run from the repository's build output (they need scripts/rgw.sh).");
        _scripts = Path.Combine(root, "scripts");

        // A quick no-op when installed; as root with apt-get it installs (~30 s); otherwise it fails with why.
        var install = await RunAsync("install-rgw.sh", [], InstallTimeout);
        if (install.ExitCode != 0)
        {
            throw new InvalidOperationException($"scripts/install-rgw.sh failed (exit {install.ExitCode}); the S3 tests need Ceph's RADOS Gateway:\n{install.Output}");
        }

        // Short: the daemons' admin sockets live under it, and a Unix socket path has at most 107 bytes.
        _directory = Path.Combine(Path.GetTempPath(), "freight-rgw-" + Guid.NewGuid().ToString("N")[..8]);
        var start = await RunAsync("rgw.sh", ["start", _directory], StartTimeout);
        var endpoint = EndpointLine().Match(start.Output);
        if (start.ExitCode != 0 || !endpoint.Success)
        {
            await DisposeAsync();
            throw new InvalidOperationException($"scripts/rgw.sh start failed (exit {start.ExitCode}):\n{start.Output}");
        }

        Endpoint = new Uri(endpoint.Groups[1].Value);
        _client = CreateClient(CreateConfig());
    }

    public async Task DisposeAsync()
    {
        _client?.Dispose();
        if (_directory is null)
        {
            return;
        }

        await RunAsync("rgw.sh", ["stop", _directory], StopTimeout);
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a leftover temp directory must not fail the run.
        }

        _directory = null;
    }

    private async Task<string> CreateBucketAsync(Type testClass)
    {
        // Bucket names: 3–63 characters of lower-case letters, digits and hyphens.
        var name = Regex.Replace(testClass.Name.ToLowerInvariant(), "[^a-z0-9]", "-");
        name = $"{name[..Math.Min(name.Length, 40)]}-{Guid.NewGuid().ToString("N")[..8]}";
        await Client.PutBucketAsync(new PutBucketRequest { BucketName = name });
        return name;
    }

    private async Task<(int ExitCode, string Output)> RunAsync(string script, string[] arguments, TimeSpan timeout)
    {
        var info = new ProcessStartInfo("bash")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        info.ArgumentList.Add(Path.Combine(_scripts!, script));
        foreach (var argument in arguments)
        {
            info.ArgumentList.Add(argument);
        }

        // Any free ports: never the developer's own RGW on 7480, nor a second test run's cluster.
        info.Environment["RGW_PORT"] = "0";
        info.Environment["MON_PORT"] = "0";
        info.Environment["S3_ACCESS_KEY"] = AccessKey;
        info.Environment["S3_SECRET_KEY"] = SecretKey;

        using var process = Process.Start(info) ?? throw new InvalidOperationException($"Could not start {script}.");
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var cancel = new CancellationTokenSource(timeout);
        try
        {
            await process.WaitForExitAsync(cancel.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"scripts/{script} {string.Join(' ', arguments)} did not finish within {timeout}.");
        }

        return (process.ExitCode, await stdout + await stderr);
    }

    private static string? FindRepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Freight.slnx")))
            {
                return dir.FullName;
            }
        }

        return null;
    }

    [GeneratedRegex(@"^endpoint: (http://\S+)$", RegexOptions.Multiline)]
    private static partial Regex EndpointLine();
}
