using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using Amazon.Runtime;
using Amazon.S3;
using Amazon.S3.Model;

namespace Freight.Testing.Rgw;

/// <summary>
/// A real S3 server for tests: Ceph's RADOS Gateway on 127.0.0.1, started with scripts/rgw.sh in a temp
/// directory (memstore: objects in RAM) on free ports. <see cref="StartAsync"/> installs the packages with
/// scripts/install-rgw.sh when they are missing; that needs root and apt-get, and without them it fails with
/// the script's reason: the S3 tests run in CI and never skip.
/// </summary>
/// <remarks>
/// A watchdog (a detached shell) stops the cluster once the test process is gone, however it ended: the test
/// host can be killed before <see cref="Stop"/> or <see cref="StopAsync"/> runs, and the daemons would outlive it.
/// Compiled into every test project (test/Shared/Rgw).
/// </remarks>
public sealed partial class RgwProcess : IAsyncDisposable
{
    // The keys rgw.sh gives the S3 user it creates (its defaults, passed explicitly so both sides agree).
    public const string AccessKey = "ciaccesskey";
    public const string SecretKey = "cisecretkey123";

    // Generous bounds for a child that hangs; install is ~30 s, start ~3 s, stop ~6 s on the CI machine.
    private static readonly TimeSpan s_installTimeout = TimeSpan.FromMinutes(10);
    private static readonly TimeSpan s_startTimeout = TimeSpan.FromMinutes(5);
    private static readonly TimeSpan s_stopTimeout = TimeSpan.FromMinutes(2);
    private static readonly TimeSpan s_adminTimeout = TimeSpan.FromMinutes(2);

    private readonly string _scripts;
    private readonly AmazonS3Client _client;
    private int _stopped;

    private RgwProcess(string scripts, string workDirectory, Uri endpoint)
    {
        _scripts = scripts;
        WorkDirectory = workDirectory;
        Endpoint = endpoint;
        _client = CreateClient(CreateConfig());
    }

    /// <summary>The S3 endpoint, e.g. http://127.0.0.1:7480.</summary>
    public Uri Endpoint { get; }

    /// <summary>The cluster's directory (ceph.conf, keyring, pids, logs); deleted on stop.</summary>
    public string WorkDirectory { get; }

    /// <summary>A client shared by the tests (the SDK's clients are thread-safe), configured as <see cref="CreateConfig"/>.</summary>
    public AmazonS3Client Client => _client;

    /// <summary>Installs RGW when needed and starts a cluster; throws with the scripts' output when either fails.</summary>
    public static async Task<RgwProcess> StartAsync()
    {
        var root = FindRepositoryRoot()
            ?? throw new InvalidOperationException($"No Freight.slnx above {AppContext.BaseDirectory}: the S3 tests run from the repository's build output (they need scripts/rgw.sh).");
        var scripts = Path.Combine(root, "scripts");

        // A quick no-op when installed; as root with apt-get it installs (~30 s); otherwise it fails with why.
        var install = await RunAsync("bash", [Path.Combine(scripts, "install-rgw.sh")], s_installTimeout);
        if (install.ExitCode != 0)
        {
            throw new InvalidOperationException($"scripts/install-rgw.sh failed (exit {install.ExitCode}); the S3 tests need Ceph's RADOS Gateway:\n{install.Output}");
        }

        // Short: the daemons' admin sockets live under it, and a Unix socket path has at most 107 bytes.
        var directory = Path.Combine(Path.GetTempPath(), "freight-rgw-" + Guid.NewGuid().ToString("N")[..8]);
        var start = await RunAsync("bash", [Path.Combine(scripts, "rgw.sh"), "start", directory], s_startTimeout);
        var endpoint = EndpointLine().Match(start.Output);
        if (start.ExitCode != 0 || !endpoint.Success)
        {
            // rgw.sh stops what it started when it fails; this covers a start that printed no endpoint.
            await RunAsync("bash", [Path.Combine(scripts, "rgw.sh"), "stop", directory], s_stopTimeout);
            DeleteDirectory(directory);
            throw new InvalidOperationException($"scripts/rgw.sh start failed (exit {start.ExitCode}):\n{start.Output}");
        }

        StartWatchdog(scripts, directory);
        return new RgwProcess(scripts, directory, new Uri(endpoint.Groups[1].Value));
    }

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

    /// <summary>Creates a new bucket named after <paramref name="hint"/> (a test class, say) plus a random suffix; returns its name.</summary>
    public async Task<string> CreateBucketAsync(string hint)
    {
        // Bucket names: 3–63 characters of lower-case letters, digits and hyphens.
        var name = BucketCharacters().Replace(hint.ToLowerInvariant(), "-").Trim('-');
        name = $"{(name.Length == 0 ? "bucket" : name[..Math.Min(name.Length, 40)])}-{Guid.NewGuid().ToString("N")[..8]}";
        await Client.PutBucketAsync(new PutBucketRequest { BucketName = name });
        return name;
    }

    /// <summary>Aborts the bucket's multipart uploads, deletes its objects and the bucket, then frees their space (<see cref="CollectGarbageAsync"/>).</summary>
    public async Task DeleteBucketAsync(string bucket)
    {
        foreach (var upload in await RgwBucket.MultipartUploadsAsync(Client, bucket))
        {
            await Client.AbortMultipartUploadAsync(bucket, upload.Key, upload.UploadId);
        }

        // One DeleteObject each: DeleteObjects needs a Content-MD5 that the SDK's WHEN_REQUIRED checksums replace with a CRC.
        var keys = await RgwBucket.KeysAsync(Client, bucket, prefix: null);
        await Parallel.ForEachAsync(keys, new ParallelOptions { MaxDegreeOfParallelism = 8 }, async (key, cancel) =>
            await Client.DeleteObjectAsync(bucket, key, cancel));
        await Client.DeleteBucketAsync(bucket);
        await CollectGarbageAsync();
    }

    /// <summary>
    /// Frees the space of deleted objects now. RGW deletes a large (multipart) object's data through its garbage
    /// collector, which waits two hours by default (rgw_gc_obj_min_wait): until then memstore keeps the bytes in RAM.
    /// </summary>
    public async Task CollectGarbageAsync()
    {
        var gc = await RunAsync("radosgw-admin", ["--conf", Path.Combine(WorkDirectory, "ceph.conf"), "gc", "process", "--include-all"], s_adminTimeout);
        if (gc.ExitCode != 0)
        {
            throw new InvalidOperationException($"radosgw-admin gc process failed (exit {gc.ExitCode}):\n{gc.Output}");
        }
    }

    /// <summary>Stops the cluster and deletes its directory; for AppDomain.ProcessExit, where nothing can be awaited. Idempotent.</summary>
    public void Stop()
    {
        if (Interlocked.Exchange(ref _stopped, 1) != 0)
        {
            return;
        }

        _client.Dispose();
        using var process = Process.Start(StartInfo("bash", [Path.Combine(_scripts, "rgw.sh"), "stop", WorkDirectory], redirect: false))!;
        if (!process.WaitForExit(s_stopTimeout))
        {
            process.Kill(entireProcessTree: true);
        }

        DeleteDirectory(WorkDirectory);
    }

    /// <summary>Stops the cluster and deletes its directory. Idempotent.</summary>
    public async Task StopAsync()
    {
        if (Interlocked.Exchange(ref _stopped, 1) != 0)
        {
            return;
        }

        _client.Dispose();
        await RunAsync("bash", [Path.Combine(_scripts, "rgw.sh"), "stop", WorkDirectory], s_stopTimeout);
        DeleteDirectory(WorkDirectory);
    }

    public async ValueTask DisposeAsync() => await StopAsync();

    /// <summary>
    /// A detached shell (own session, no inherited output) that waits for this process to end, then stops the
    /// cluster and deletes its directory; a no-op when <see cref="Stop"/> or <see cref="StopAsync"/> already did.
    /// </summary>
    private static void StartWatchdog(string scripts, string directory)
    {
        // A zombie counts as gone: a host whose parent exited first stays one until init reaps it.
        var script = """
            exec </dev/null >/dev/null 2>&1
            running() { [ -e "/proc/$1" ] && [ "$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)" != Z ]; }
            while running "$1"; do sleep 1; done
            bash "$2" stop "$3"
            rm -rf "$3"
            """;
        using var watchdog = Process.Start(StartInfo(
            "setsid",
            ["bash", "-c", script, "rgw-watchdog", Environment.ProcessId.ToString(CultureInfo.InvariantCulture), Path.Combine(scripts, "rgw.sh"), directory],
            redirect: false))!;
    }

    private static ProcessStartInfo StartInfo(string program, string[] arguments, bool redirect)
    {
        var info = new ProcessStartInfo(program)
        {
            RedirectStandardOutput = redirect,
            RedirectStandardError = redirect,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            info.ArgumentList.Add(argument);
        }

        // Any free ports: never the developer's own RGW on 7480, nor a second test process's cluster.
        info.Environment["RGW_PORT"] = "0";
        info.Environment["MON_PORT"] = "0";
        info.Environment["S3_ACCESS_KEY"] = AccessKey;
        info.Environment["S3_SECRET_KEY"] = SecretKey;
        return info;
    }

    private static async Task<(int ExitCode, string Output)> RunAsync(string program, string[] arguments, TimeSpan timeout)
    {
        using var process = Process.Start(StartInfo(program, arguments, redirect: true)) ?? throw new InvalidOperationException($"Could not start {program}.");
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
            throw new TimeoutException($"{program} {string.Join(' ', arguments)} did not finish within {timeout}.");
        }

        return (process.ExitCode, await stdout + await stderr);
    }

    private static void DeleteDirectory(string directory)
    {
        try
        {
            Directory.Delete(directory, recursive: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Best effort: a leftover temp directory must not fail the run.
        }
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

    [GeneratedRegex("[^a-z0-9]+")]
    private static partial Regex BucketCharacters();
}
