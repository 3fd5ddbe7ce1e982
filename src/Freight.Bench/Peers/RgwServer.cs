using System.Diagnostics;
using System.Globalization;
using System.Net;
using Amazon.Runtime;
using Amazon.S3;
using Amazon.S3.Model;
using Freight.Bench.Measure;

namespace Freight.Bench.Peers;

/// <summary>
/// A running RGW cluster from <see cref="Rgw.StartAsync"/>: S3 at <see cref="Endpoint"/>, its daemons' state in
/// <see cref="WorkDirectory"/>. Disposing stops the daemons (<c>rgw.sh stop</c>) and removes the directory, and
/// waits for both; if the bench dies first, a watchdog does it.
/// </summary>
public sealed class RgwServer : IAsyncDisposable
{
    /// <summary>Presigned URLs outlive any bench run (a full files suite takes minutes); SigV4 allows up to 7 days.</summary>
    private static readonly TimeSpan PresignedLifetime = TimeSpan.FromHours(6);

    private readonly string _scripts;
    private readonly Process? _watchdog;
    private readonly AmazonS3Client _client;
    private int _disposed;

    internal RgwServer(string scripts, string workDirectory, Uri endpoint, string version, Process? watchdog)
    {
        _scripts = scripts;
        _watchdog = watchdog;
        WorkDirectory = workDirectory;
        Endpoint = endpoint;
        Version = version;
        _client = new AmazonS3Client(new BasicAWSCredentials(Rgw.AccessKey, Rgw.SecretKey), CreateConfig());
    }

    /// <summary><c>http://127.0.0.1:PORT</c>, as rgw.sh printed it.</summary>
    public Uri Endpoint { get; }

    /// <summary>Ceph's version, e.g. "16.2.15" (from <c>radosgw --version</c>).</summary>
    public string Version { get; }

    /// <summary>The cluster's directory (ceph.conf, keyring, pids, logs); removed on dispose.</summary>
    public string WorkDirectory { get; }

    /// <summary>An SDK client for control requests (buckets, deletes, presigning); configured as <see cref="CreateConfig"/>.</summary>
    public AmazonS3Client Client => _client;

    /// <summary>True once disposed: the cluster is stopped.</summary>
    public bool IsStopped => Volatile.Read(ref _disposed) != 0;

    /// <summary>
    /// What the SDK (v4) needs for RGW (Ceph Pacific): path-style addresses (no wildcard DNS for buckets), a region
    /// to sign for, and checksums only where an operation requires them — since 4.0 the SDK otherwise sends uploads
    /// aws-chunked with a CRC32 trailer, which Pacific's RGW rejects (400 XAmzContentSHA256Mismatch).
    /// </summary>
    public AmazonS3Config CreateConfig() => new()
    {
        ServiceURL = Endpoint.GetLeftPart(UriPartial.Authority),
        ForcePathStyle = true,
        AuthenticationRegion = Rgw.Region,
        RequestChecksumCalculation = RequestChecksumCalculation.WHEN_REQUIRED,
        ResponseChecksumValidation = ResponseChecksumValidation.WHEN_REQUIRED,
    };

    /// <summary>Creates <paramref name="bucket"/> (3–63 lower-case letters, digits and hyphens); a bucket we already own is fine.</summary>
    public async Task CreateBucketAsync(string bucket, CancellationToken cancellationToken)
    {
        try
        {
            await _client.PutBucketAsync(new PutBucketRequest { BucketName = bucket }, cancellationToken);
        }
        catch (AmazonS3Exception exists) when (exists.ErrorCode == "BucketAlreadyOwnedByYou")
        {
            // Created by an earlier run on this cluster.
        }
    }

    /// <summary>
    /// The <c>freight serve</c> arguments that put its files in <paramref name="bucket"/> on this server
    /// (<c>Freight:Files:Store</c> S3 and <c>Freight:S3</c>'s endpoint, bucket and keys).
    /// </summary>
    public string[] FreightStoreArguments(string bucket) =>
    [
        "--Freight:Files:Store", "S3",
        "--Freight:S3:Endpoint", Endpoint.GetLeftPart(UriPartial.Authority),
        "--Freight:S3:Bucket", bucket,
        "--Freight:S3:AccessKey", Rgw.AccessKey,
        "--Freight:S3:SecretKey", Rgw.SecretKey,
    ];

    /// <summary>
    /// A presigned plain-HTTP URL for <paramref name="verb"/> (PUT or GET) of one object. Its requests carry
    /// UNSIGNED-PAYLOAD, so neither side hashes the body for the signature; it can be used any number of times.
    /// </summary>
    public Uri Presign(HttpVerb verb, string bucket, string key) => new(_client.GetPreSignedURL(new GetPreSignedUrlRequest
    {
        BucketName = bucket,
        Key = key,
        Verb = verb,
        Protocol = Protocol.HTTP,
        Expires = DateTime.UtcNow + PresignedLifetime,
    }));

    /// <summary>Every object in <paramref name="bucket"/>: its key and size, in key order.</summary>
    public async Task<IReadOnlyList<(string Key, long Size)>> ListObjectsAsync(string bucket, CancellationToken cancellationToken)
    {
        var objects = new List<(string, long)>();
        string? token = null;
        do
        {
            var page = await _client.ListObjectsV2Async(new ListObjectsV2Request { BucketName = bucket, ContinuationToken = token }, cancellationToken);
            foreach (var item in page.S3Objects ?? [])
            {
                objects.Add((item.Key, item.Size ?? 0));
            }

            token = page.IsTruncated == true ? page.NextContinuationToken : null;
        }
        while (token is not null);

        return objects;
    }

    /// <summary>Deletes one object; a missing one is fine (S3's DELETE is idempotent).</summary>
    public async Task DeleteObjectAsync(string bucket, string key, CancellationToken cancellationToken)
    {
        try
        {
            await _client.DeleteObjectAsync(new DeleteObjectRequest { BucketName = bucket, Key = key }, cancellationToken);
        }
        catch (AmazonS3Exception missing) when (missing.StatusCode == HttpStatusCode.NotFound)
        {
            // The bucket is gone: so is the object.
        }
    }

    /// <summary>
    /// Frees the RAM of overwritten and deleted objects now. RGW hands a large object's data to its garbage
    /// collector, which waits two hours by default (rgw_gc_obj_min_wait): until then memstore keeps the old bytes,
    /// and a bench that overwrites 1 GiB objects fills the 8 GiB memstore within minutes. ~0.25 s.
    /// </summary>
    /// <exception cref="InvalidOperationException">radosgw-admin failed (its output says why).</exception>
    public async Task CollectGarbageAsync(CancellationToken cancellationToken)
    {
        var gc = await Rgw.RunAsync("radosgw-admin", ["--conf", Path.Combine(WorkDirectory, "ceph.conf"), "gc", "process", "--include-all"], Rgw.AdminTimeout, cancellationToken);
        if (gc.ExitCode != 0)
        {
            throw new InvalidOperationException($"radosgw-admin gc process failed: {gc.Describe()}");
        }
    }

    /// <summary>The daemons rgw.sh recorded (<c>DIR/pids</c>: "name pid" lines), by name.</summary>
    public IReadOnlyList<(string Name, int ProcessId)> Daemons()
    {
        var daemons = new List<(string, int)>();
        try
        {
            foreach (var line in File.ReadLines(Path.Combine(WorkDirectory, "pids")))
            {
                var parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                if (parts.Length == 2 && int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var pid))
                {
                    daemons.Add((parts[0], pid));
                }
            }
        }
        catch (IOException)
        {
            // Stopped and removed.
        }

        return daemons;
    }

    /// <summary>
    /// CPU seconds and resident bytes of the data path's daemons together (radosgw, which speaks S3, and ceph-osd,
    /// which holds the objects; the monitor and manager only keep the cluster's maps), or null off Linux or once a
    /// daemon is gone.
    /// </summary>
    public (double CpuSeconds, long WorkingSetBytes)? CaptureDataPath()
    {
        double cpu = 0;
        long resident = 0;
        var found = 0;
        foreach (var (name, pid) in Daemons())
        {
            if (name is not ("radosgw" or "ceph-osd"))
            {
                continue;
            }

            if (ProcessStatSnapshot.Capture(pid) is not { } snapshot)
            {
                return null;
            }

            cpu += snapshot.CpuSeconds;
            resident += snapshot.WorkingSetBytes;
            found++;
        }

        return found == 2 ? (cpu, resident) : null;
    }

    /// <summary>
    /// Pins every thread of every daemon to the CPUs of <paramref name="cpuList"/> (taskset's list form, e.g. "0").
    /// The daemons are already running with dozens of threads, and setting a process's affinity moves only its main
    /// thread, hence <c>taskset -a</c>. Returns why not when taskset is missing or refused.
    /// </summary>
    public async Task<string?> PinAsync(string cpuList, CancellationToken cancellationToken)
    {
        if (Executables.Find("taskset", "/usr/bin/taskset") is not { } taskset)
        {
            return "taskset is not installed (util-linux)";
        }

        foreach (var (_, pid) in Daemons())
        {
            var run = await ChildProcess.RunAsync(taskset, ["-a", "-p", "-c", cpuList, pid.ToString(CultureInfo.InvariantCulture)], null, Rgw.AdminTimeout, cancellationToken);
            if (run.ExitCode != 0)
            {
                return run.Describe();
            }
        }

        return null;
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _client.Dispose();
        await Rgw.StopAsync(_scripts, WorkDirectory);

        // The watchdog sees the directory gone and leaves on its own.
        _watchdog?.Dispose();
    }
}
