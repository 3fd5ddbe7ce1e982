using Amazon.S3;
using Freight.Resumable;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Testing.Rgw;
using Microsoft.Extensions.DependencyInjection;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// A Freight server for tus tests: a files server (finished uploads are files) whose unfinished uploads
/// live in <see cref="TusDirectory"/> (<c>{DataDirectory}/tus</c>); null for the memory and S3 stores.
/// </summary>
public abstract class TusServer(params string[] arguments) : FilesServer(arguments)
{
    public virtual string? TusDirectory => Path.Combine(DataDirectory, "tus");

    /// <summary>Whether HEAD's offset moves while a PATCH streams (file system, memory); S3 buffers up to a part first.</summary>
    public virtual bool StoresBytesAsTheyArrive => true;

    /// <summary>
    /// How many bytes the store holds for the upload at <paramref name="path"/>, read from the store itself: a HEAD
    /// would take over the PATCH a test watches. The file-system store's file, else the in-process server's store.
    /// </summary>
    public async Task<long> StoredOffsetAsync(string path)
    {
        if (TusDirectory is { } directory)
        {
            var bytes = new FileInfo(Path.Combine(directory, TusApi.Id(path) + ".bin"));
            return bytes.Exists ? bytes.Length : 0;
        }

        var upload = await Server.App.Services.GetRequiredService<IResumableUploadStore>().GetAsync(TusApi.Id(path));
        return upload?.Offset ?? 0;
    }

    /// <summary>Every file in the tus directory (names, sorted); empty for the memory store.</summary>
    public IReadOnlyList<string> TusFiles() =>
        TusDirectory is { } directory && Directory.Exists(directory)
            ? Directory.GetFiles(directory).Select(file => Path.GetFileName(file)).Order(StringComparer.Ordinal).ToList()
            : [];

    /// <summary>The bytes the file-system store holds for an unfinished upload, or null when it holds none.</summary>
    public byte[]? StoredBytes(string id)
    {
        if (TusDirectory is null)
        {
            throw new InvalidOperationException("The memory store has no files on disk.");
        }

        var path = Path.Combine(TusDirectory, id + ".bin");
        return File.Exists(path) ? File.ReadAllBytes(path) : null;
    }

    public bool HasRecord(string id) =>
        TusDirectory is null ? throw new InvalidOperationException("The memory store has no files on disk.") : File.Exists(Path.Combine(TusDirectory, id + ".json"));
}

/// <summary>
/// The default file-system stores. Concurrency per client raised to 64 so the concurrent-upload tests measure
/// the stores, not the limiter.
/// </summary>
public sealed class FileSystemTusServer() : TusServer("--Freight:Files:MaxConcurrentUploadsPerClient", "64");

/// <summary>The memory stores, for files and uploads alike: one contract, several stores.</summary>
public sealed class MemoryTusServer() : TusServer("--Freight:Files:Store", "Memory", "--Freight:Files:MaxConcurrentUploadsPerClient", "64")
{
    public override string? FilesDirectory => null;

    public override string? TusDirectory => null;
}

/// <summary>
/// The S3 store for files and uploads alike (unfinished uploads under its reserved prefix), on the test process's
/// RGW (<see cref="SharedRgw"/>), in a bucket made for this fixture and deleted after it. Parts of 5 MiB (S3's
/// floor), so the suites' few-MiB uploads go through parts and the tail, not the tail alone.
/// </summary>
public sealed class S3TusServer() : TusServer("--Freight:Files:MaxConcurrentUploadsPerClient", "64", "--Freight:S3:PartBytes", "5242880")
{
    private readonly FixtureBucket _bucket = new();

    public override string? FilesDirectory => null;

    public override string? TusDirectory => null;

    public override bool StoresBytesAsTheyArrive => false;

    /// <summary>The fixture's bucket: the store's objects, for assertions through <see cref="S3"/>.</summary>
    public string Bucket => RgwBucket.Name;

    /// <summary>A client of the RGW the server stores in.</summary>
    public AmazonS3Client S3 => RgwBucket.Client;

    public RgwBucket RgwBucket => _bucket.Bucket;

    protected override Task<string[]> StartArgumentsAsync() => _bucket.CreateAsync(GetType().Name);

    protected override Task AfterStopAsync() => _bucket.DeleteAsync();
}

/// <summary>Bearer tokens: <see cref="ReadToken"/> may read files, only <see cref="WriteToken"/> may upload.</summary>
public sealed class TokenTusServer() : TusServer("--Freight:Files:ReadTokens:0", ReadToken, "--Freight:Files:WriteTokens:0", WriteToken)
{
    public const string ReadToken = "r0";

    public const string WriteToken = "w0";
}

/// <summary>Uploads of at most 1 MiB (Tus-Max-Size).</summary>
public sealed class SmallTusServer() : TusServer("--Freight:Tus:MaxUploadBytes", "1048576")
{
    public const int Limit = 1024 * 1024;
}

/// <summary>
/// Uploads expire one second after their last byte, and the sweep runs once at start and then not for a day:
/// an expired upload stays visible as 410 Gone, its bytes still on disk.
/// </summary>
public sealed class ExpiringTusServer() : TusServer("--Freight:Tus:ExpireAfter", "00:00:01", "--Freight:Tus:SweepInterval", "1.00:00:00");

/// <summary>Uploads expire one second after their last byte and the sweep runs every 200 ms: expired uploads vanish.</summary>
public sealed class SweepingTusServer() : TusServer("--Freight:Tus:ExpireAfter", "00:00:01", "--Freight:Tus:SweepInterval", "00:00:00.200");

/// <summary>Finished uploads land under <c>/files/uploads/</c>.</summary>
public sealed class PrefixTusServer() : TusServer("--Freight:Tus:FilesPrefix", Prefix)
{
    public const string Prefix = "uploads";
}

/// <summary>Every file keeps its SHA-256 (the files API's AlwaysComputeSha256): tus uploads included.</summary>
public sealed class Sha256TusServer() : TusServer("--Freight:Files:AlwaysComputeSha256", "true");
