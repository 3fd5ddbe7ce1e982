using Amazon.S3;
using Freight.Server.Tests.Infrastructure;
using Freight.Testing.Rgw;

namespace Freight.Server.Tests.Files;

/// <summary>
/// A Freight server for files-API tests. <see cref="FilesDirectory"/> is where the file-system store keeps
/// files (<c>{DataDirectory}/files</c>); null for the memory and S3 stores, which have no disk to look at.
/// </summary>
public abstract class FilesServer(params string[] arguments) : ServerHarness(arguments)
{
    public virtual string? FilesDirectory => Path.Combine(DataDirectory, "files");

    /// <summary>In-progress writes of the files store (the harness's <see cref="ServerHarness.TempFiles"/> covers the whole data directory).</summary>
    public string[] FilesTempFiles() =>
        FilesDirectory is { } root && Directory.Exists(root) ? Directory.GetFiles(root, "*.freight-tmp", SearchOption.AllDirectories) : [];

    /// <summary>The path a key's bytes live at in the file-system store.</summary>
    public string DiskPath(string key) =>
        Path.Combine(FilesDirectory ?? throw new InvalidOperationException("The memory store has no files on disk."), key.Replace('/', Path.DirectorySeparatorChar));

    /// <summary>Every file and directory under the data directory (relative, sorted): compared before and after a refused request.</summary>
    public IReadOnlyList<string> DataDirectorySnapshot() =>
        Directory.Exists(DataDirectory)
            ? Directory.GetFileSystemEntries(DataDirectory, "*", SearchOption.AllDirectories)
                .Select(entry => Path.GetRelativePath(DataDirectory, entry) + (Directory.Exists(entry) ? "/" : ""))
                .Order(StringComparer.Ordinal)
                .ToList()
            : [];
}

/// <summary>
/// The default file-system store. Concurrency per client raised to 64 so the concurrent-writer tests measure
/// the store, not the limiter (which has its own fixture).
/// </summary>
public sealed class FileSystemFilesServer() : FilesServer("--Freight:Files:MaxConcurrentUploadsPerClient", "64");

/// <summary>The file-system store with Freight:Tls:SendRecordsOnSocket off: TLS records through Kestrel's transport pipe and send loop.</summary>
public sealed class KestrelTlsSendFilesServer() : FilesServer("--Freight:Tls:SendRecordsOnSocket", "false", "--Freight:Files:MaxConcurrentUploadsPerClient", "64");

/// <summary>The file-system store with Freight:SendFile off: large bodies by the copying path, as over TLS.</summary>
public sealed class CopyingFilesServer() : FilesServer("--Freight:SendFile", "false", "--Freight:Files:MaxConcurrentUploadsPerClient", "64");

/// <summary>The memory store: one contract, several stores.</summary>
public sealed class MemoryFilesServer() : FilesServer("--Freight:Files:Store", "Memory", "--Freight:Files:MaxConcurrentUploadsPerClient", "64")
{
    public override string? FilesDirectory => null;
}

/// <summary>
/// The S3 store on the test process's RGW (<see cref="SharedRgw"/>), in a bucket made for this fixture and
/// deleted after it (with its space: big payloads stay in RGW's RAM until then).
/// </summary>
public sealed class S3FilesServer() : FilesServer("--Freight:Files:MaxConcurrentUploadsPerClient", "64")
{
    private readonly FixtureBucket _bucket = new();

    public override string? FilesDirectory => null;

    /// <summary>The fixture's bucket: the store's objects, for assertions through <see cref="S3"/>.</summary>
    public string Bucket => RgwBucket.Name;

    /// <summary>A client of the RGW the server stores in.</summary>
    public AmazonS3Client S3 => RgwBucket.Client;

    public RgwBucket RgwBucket => _bucket.Bucket;

    protected override Task<string[]> StartArgumentsAsync() => _bucket.CreateAsync(GetType().Name);

    protected override Task AfterStopAsync() => _bucket.DeleteAsync();
}

/// <summary>Bearer tokens: <see cref="ReadToken"/> may read, <see cref="WriteToken"/> may read and write.</summary>
public sealed class TokenFilesServer() : FilesServer("--Freight:Files:ReadTokens:0", ReadToken, "--Freight:Files:WriteTokens:0", WriteToken)
{
    public const string ReadToken = "r0";

    public const string WriteToken = "w0";
}

/// <summary>A server-wide body limit of 1 MiB under a files limit of 4 MiB: MaxFileBytes decides, for a PUT and a multipart POST alike.</summary>
public sealed class NarrowBodyFilesServer() : FilesServer("--max-body-bytes", "1048576", "--Freight:Files:MaxFileBytes", "4194304");

/// <summary>Files of at most 1 MiB (the server's own body limit stays at its 4 GiB default).</summary>
public sealed class SmallLimitFilesServer() : FilesServer("--Freight:Files:MaxFileBytes", "1048576")
{
    public const int Limit = 1024 * 1024;
}

/// <summary>One upload in flight per client address.</summary>
public sealed class LimiterFilesServer() : FilesServer("--Freight:Files:MaxConcurrentUploadsPerClient", "1");
