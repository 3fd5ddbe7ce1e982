using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Freight.Resumable;
using Freight.AspNetCore.Errors;
using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using Freight.AspNetCore.Tus;
using Freight.Storage;
using Microsoft.AspNetCore.Http;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Issue 16, item 3: a tus creation declares a length but must not hold it. Unfinished uploads count against
/// their client (429 with Retry-After past Tus:MaxUnfinishedUploadsPerClient, never against another client) and
/// against what all of them may still expect (507 past Tus:MaxPendingBytes); finishing, terminating or joining
/// uploads frees their share. Clients are told apart by address: each test connects from a loopback address
/// of its own (127.0.0.0/8 is all loopback on Linux). One contract, run against each store.
/// </summary>
public abstract class TusQuotaTests(TusServer server)
{
    private const int PerClient = QuotaServers.PerClient;

    private const int PendingBytes = QuotaServers.PendingBytes;

    [Fact]
    public async Task Post_PastTheClientsUnfinishedUploads_Returns429WithRetryAfterAndCreatesNothing()
    {
        using var client = QuotaServers.NewClient();
        var created = await CreateManyAsync(client, PerClient);
        var before = server.TusFiles();

        using var refused = await PostFromAsync(client, ("Upload-Length", "10"));

        await AssertRefusedAsync(refused, HttpStatusCode.TooManyRequests);
        Assert.True(refused.Headers.RetryAfter?.Delta > TimeSpan.Zero, "no Retry-After in seconds");
        Assert.Null(refused.Headers.Location);
        Assert.Equal(before, server.TusFiles());
        foreach (var path in created)
        {
            Assert.Equal(0, await OffsetAsync(server, path));
        }

        await DeleteAllAsync(created);
    }

    [Fact]
    public async Task Post_WithABodyPastTheClientsUnfinishedUploads_Returns429AndStoresNothing()
    {
        using var client = QuotaServers.NewClient();
        var created = await CreateManyAsync(client, PerClient);
        var before = server.TusFiles();
        var key = NewFileName();

        using var refused = await PostFromAsync(client, Body(Content(1000, seed: 301)), ("Upload-Length", "1000"), ("Upload-Metadata", Metadata(("filename", key))));

        await AssertRefusedAsync(refused, HttpStatusCode.TooManyRequests);
        Assert.Equal(before, server.TusFiles());
        await AssertNoFileAsync(server, key);
        await DeleteAllAsync(created);
    }

    [Fact]
    public async Task Post_FromAnotherClientWhileOneIsAtItsLimit_Returns201()
    {
        using var full = QuotaServers.NewClient();
        using var other = QuotaServers.NewClient();
        var created = await CreateManyAsync(full, PerClient);
        using (var refused = await PostFromAsync(full, ("Upload-Length", "10")))
        {
            await AssertRefusedAsync(refused, HttpStatusCode.TooManyRequests);
        }

        var admitted = await CreateManyAsync(other, PerClient);

        await DeleteAllAsync([.. created, .. admitted]);
    }

    [Fact]
    public async Task Post_AfterOneOfTheClientsUploadsFinished_Returns201AndTheFileVerifies()
    {
        using var client = QuotaServers.NewClient();
        var key = NewFileName();
        var content = Content(10, seed: 302);
        var created = await CreateManyAsync(client, PerClient - 1);
        using (var response = await PostFromAsync(client, ("Upload-Length", "10"), ("Upload-Metadata", Metadata(("filename", key)))))
        {
            var finishing = await CreatedAsync(response);
            Assert.Equal("/files/" + key, await PatchAllAsync(server, finishing, content, content.Length));
        }

        created.AddRange(await CreateManyAsync(client, 1));

        await AssertFileAsync(server, key, content);
        await DeleteAllAsync(created);
    }

    [Fact]
    public async Task Post_AfterOneOfTheClientsUploadsWasTerminated_Returns201()
    {
        using var client = QuotaServers.NewClient();
        var created = await CreateManyAsync(client, PerClient);
        using (var deleted = await DeleteAsync(server, created[0]))
        {
            Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        }

        created[0] = (await CreateManyAsync(client, 1))[0];

        await DeleteAllAsync(created);
    }

    [Fact]
    public async Task FinalUpload_OfAClientWhosePartsFillItsLimit_IsMadeAndFreesTheParts()
    {
        using var client = QuotaServers.NewClient();
        var key = NewFileName();
        var content = Content(3000, seed: 303);
        var parts = new List<string>();
        for (var i = 0; i < PerClient; i++)
        {
            using var response = await PostFromAsync(client, ("Upload-Length", "1000"), ("Upload-Concat", "partial"));
            var part = await CreatedAsync(response);
            await PatchAllAsync(server, part, content[(i * 1000)..((i + 1) * 1000)], 1000);
            parts.Add(part);
        }

        using (var refused = await PostFromAsync(client, ("Upload-Length", "10")))
        {
            await AssertRefusedAsync(refused, HttpStatusCode.TooManyRequests);
        }

        using (var final = await PostFromAsync(client, ("Upload-Concat", "final;" + string.Join(' ', parts)), ("Upload-Metadata", Metadata(("filename", key)))))
        {
            await CreatedAsync(final);
        }

        await AssertFileAsync(server, key, content);
        var created = await CreateManyAsync(client, PerClient);
        await DeleteAllAsync(created);
    }

    [Fact]
    public async Task Post_PastThePendingBytes_Returns507AndCreatesNothing()
    {
        using var client = QuotaServers.NewClient();
        var first = await CreateFromAsync(client, PendingBytes * 6 / 10);
        var before = server.TusFiles();

        using var refused = await PostFromAsync(client, ("Upload-Length", Invariant(PendingBytes * 6 / 10)));

        await AssertRefusedAsync(refused, HttpStatusCode.InsufficientStorage);
        Assert.Null(refused.Headers.Location);
        Assert.Equal(before, server.TusFiles());
        await DeleteAllAsync([first]);
    }

    [Fact]
    public async Task Post_AfterBytesArrived_CountsOnlyWhatTheUploadsStillExpect()
    {
        using var client = QuotaServers.NewClient();
        var length = PendingBytes * 6 / 10;
        var content = Content(length, seed: 304);
        var first = await CreateFromAsync(client, length);
        using (var refused = await PostFromAsync(client, ("Upload-Length", Invariant(length))))
        {
            await AssertRefusedAsync(refused, HttpStatusCode.InsufficientStorage);
        }

        await PatchAllAsync(server, first, content[..(length / 2)], length / 2);

        // 0.3 still expected of the first, 0.6 of the second: within the 1.0 allowed.
        var second = await CreateFromAsync(client, length);
        await DeleteAllAsync([first, second]);
    }

    [Fact]
    public async Task DeferredUpload_DeclaringALengthPastThePendingBytes_Returns507AndStaysDeferred()
    {
        using var client = QuotaServers.NewClient();
        using var created = await PostFromAsync(client, ("Upload-Defer-Length", "1"));
        var deferred = await CreatedAsync(created);
        var other = await CreateFromAsync(client, PendingBytes * 6 / 10);

        using (var refused = await PatchAsync(server, deferred, 0, [], headers: ("Upload-Length", Invariant(PendingBytes * 6 / 10))))
        {
            await AssertRefusedAsync(refused, HttpStatusCode.InsufficientStorage);
        }

        using (var head = await HeadAsync(server, deferred))
        {
            Assert.Equal(HttpStatusCode.OK, head.StatusCode);
            Assert.Equal("1", Header(head, "Upload-Defer-Length"));
            Assert.Null(Header(head, "Upload-Length"));
        }

        await DeleteAllAsync([other]);
        using (var declared = await PatchAsync(server, deferred, 0, [], headers: ("Upload-Length", Invariant(PendingBytes * 6 / 10))))
        {
            Assert.Equal(HttpStatusCode.NoContent, declared.StatusCode);
        }

        await DeleteAllAsync([deferred]);
    }

    [Fact]
    public async Task Upload_InChunks_BecomesTheFileByteForByte()
    {
        var key = NewFileName();
        var content = Content(PendingBytes * 9 / 10, seed: 305);
        var path = await CreateAsync(server, content.Length, key);

        await PatchAllAsync(server, path, content, 128 * 1024);

        await AssertFileAsync(server, key, content);
        await AssertServingAsync();
    }

    private Task AssertServingAsync() => server.AssertServingAsync();

    private async Task<HttpResponseMessage> PostFromAsync(HttpClient client, params (string Name, string Value)[] headers) =>
        await PostFromAsync(client, null, headers);

    private async Task<HttpResponseMessage> PostFromAsync(HttpClient client, HttpContent? body, params (string Name, string Value)[] headers)
    {
        using var request = Request(server, HttpMethod.Post, "/tus/");
        request.Content = body;
        AddHeaders(request, headers);
        return await client.SendAsync(request);
    }

    private async Task<string> CreateFromAsync(HttpClient client, long length)
    {
        using var response = await PostFromAsync(client, ("Upload-Length", Invariant(length)));
        return await CreatedAsync(response);
    }

    private async Task<List<string>> CreateManyAsync(HttpClient client, int count)
    {
        var created = new List<string>();
        for (var i = 0; i < count; i++)
        {
            created.Add(await CreateFromAsync(client, 10));
        }

        return created;
    }

    /// <summary>Terminates what a test left unfinished, so the fixture's pending bytes are back where they were.</summary>
    private async Task DeleteAllAsync(IEnumerable<string> paths)
    {
        foreach (var path in paths)
        {
            using var deleted = await DeleteAsync(server, path);
            Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        }
    }
}

public sealed class TusQuotaFileSystemTests(QuotaFileSystemTusServer server) : TusQuotaTests(server), IClassFixture<QuotaFileSystemTusServer>;

public sealed class TusQuotaMemoryTests(QuotaMemoryTusServer server) : TusQuotaTests(server), IClassFixture<QuotaMemoryTusServer>;

public sealed class TusQuotaS3Tests(QuotaS3TusServer server) : TusQuotaTests(server), IClassFixture<QuotaS3TusServer>;

/// <summary>
/// The reproduction with the default options: a creation reserves nothing on disk, so three POSTs that
/// declare 4 GiB each leave the tus directory as empty as it was; bytes take space as they arrive.
/// </summary>
public sealed class TusReservationTests(FileSystemTusServer server) : IClassFixture<FileSystemTusServer>
{
    [Fact]
    public async Task Post_ThreeUploadsDeclaringFourGiB_ReserveNoDiskSpace()
    {
        // 4 GiB each as in the issue (Tus-Max-Size by default), less on a volume that could not promise 3 × 4 GiB.
        var free = new DriveInfo(server.TusDirectory!).AvailableFreeSpace - (1L << 30);
        var length = Math.Min(4L << 30, free / 4);
        var paths = new List<string>();
        for (var i = 0; i < 3; i++)
        {
            paths.Add(await CreateAsync(server, length, NewFileName()));
        }

        Assert.True(await AllocatedKiBAsync(server.TusDirectory!) < 1024, "the tus directory holds space for bytes that never arrived");
        foreach (var path in paths)
        {
            Assert.Equal(0, await OffsetAsync(server, path));
            using var deleted = await DeleteAsync(server, path);
            Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        }
    }

    [Fact]
    public async Task Patch_OfPartOfTheUpload_TakesSpaceForTheBytesThatArrived()
    {
        var key = NewFileName();
        var content = Content(8 * 1024 * 1024, seed: 306);
        var path = await CreateAsync(server, content.Length, key);

        await PatchAllAsync(server, path, content[..(1024 * 1024)], 1024 * 1024);

        var data = Path.Combine(server.TusDirectory!, Id(path) + ".bin");
        Assert.InRange(await AllocatedKiBAsync(data), 1024, 2048);
        await PatchAllAsync(server, path, content, 1024 * 1024, from: 1024 * 1024);
        await AssertFileAsync(server, key, content);
    }

    /// <summary>Blocks the file system allocated under <paramref name="path"/> (<c>du -sk</c>), not the files' lengths.</summary>
    private static async Task<long> AllocatedKiBAsync(string path)
    {
        using var du = Process.Start(new ProcessStartInfo("du", ["-sk", path]) { RedirectStandardOutput = true })!;
        var output = await du.StandardOutput.ReadToEndAsync();
        await du.WaitForExitAsync();
        Assert.Equal(0, du.ExitCode);
        return long.Parse(output.Split('\t')[0], NumberStyles.None, CultureInfo.InvariantCulture);
    }
}

/// <summary>
/// The store's free space: with Tus:MinFreeBytes above any volume's size, no declared byte can be promised —
/// a creation with a length is 507 and leaves nothing, one of 0 bytes or a deferred length is still made.
/// The file-system store asks its volume, the memory store the memory left.
/// </summary>
public abstract class TusFreeSpaceTests(TusServer server)
{
    [Fact]
    public async Task Post_PastTheStoresFreeSpace_Returns507AndCreatesNothing()
    {
        var before = server.TusFiles();

        using var refused = await PostAsync(server, [("Upload-Length", "1000"), ("Upload-Metadata", Metadata(("filename", NewFileName())))]);

        await AssertRefusedAsync(refused, HttpStatusCode.InsufficientStorage);
        Assert.Equal(before, server.TusFiles());
        await server.AssertServingAsync();
    }

    [Fact]
    public async Task DeferredUpload_DeclaringALengthPastTheStoresFreeSpace_Returns507()
    {
        var path = await CreateDeferredAsync(server, NewFileName());

        using var refused = await PatchAsync(server, path, 0, [], headers: ("Upload-Length", "1000"));

        await AssertRefusedAsync(refused, HttpStatusCode.InsufficientStorage);
        Assert.Equal(0, await OffsetAsync(server, path));
    }

    [Fact]
    public async Task Post_OfAnEmptyFile_NeedsNoSpaceAndReturns201()
    {
        var key = NewFileName();

        using var response = await PostAsync(server, [("Upload-Length", "0"), ("Upload-Metadata", Metadata(("filename", key)))]);

        await CreatedAsync(response);
        await AssertFileAsync(server, key, []);
    }
}

public sealed class TusFreeSpaceFileSystemTests(FullFileSystemTusServer server) : TusFreeSpaceTests(server), IClassFixture<FullFileSystemTusServer>;

public sealed class TusFreeSpaceMemoryTests(FullMemoryTusServer server) : TusFreeSpaceTests(server), IClassFixture<FullMemoryTusServer>;

/// <summary>
/// An upload that expires frees its client's share once the sweep removes it: uploads expire one second after
/// their last byte and the sweep runs every 200 ms; one unfinished upload per client.
/// </summary>
public sealed class TusQuotaExpiryTests(ExpiringQuotaTusServer server) : IClassFixture<ExpiringQuotaTusServer>
{
    [Fact]
    public async Task Post_AfterTheClientsUploadExpired_Returns201()
    {
        using var client = QuotaServers.NewClient();
        var first = await CreateFromAsync(client);
        using (var second = await PostFromAsync(client))
        {
            if (second.StatusCode == HttpStatusCode.Created)
            {
                // Admitted only if the first already expired and was swept (a machine slow enough to take 1 s here).
                Assert.Equal(HttpStatusCode.NotFound, await HeadStatusAsync(server, first));
                using var deleted = await DeleteAsync(server, await CreatedAsync(second));
            }
            else
            {
                await AssertRefusedAsync(second, HttpStatusCode.TooManyRequests);
            }
        }

        Assert.True(await PollUntilAsync(async () => await HeadStatusAsync(server, first) == HttpStatusCode.NotFound), "the upload was never swept");

        await CreateFromAsync(client);
    }

    private async Task<HttpResponseMessage> PostFromAsync(HttpClient client)
    {
        using var request = Request(server, HttpMethod.Post, "/tus/");
        AddHeaders(request, ("Upload-Length", "10"));
        return await client.SendAsync(request);
    }

    private async Task<string> CreateFromAsync(HttpClient client)
    {
        using var response = await PostFromAsync(client);
        return await CreatedAsync(response);
    }
}

/// <summary>
/// The counts live in the store, not the process: a client at its limit is still at it after a restart on the
/// same data directory (the first sweep counts the records, and creations wait for it).
/// </summary>
public sealed class TusQuotaRestartTests : IDisposable
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }

    [Fact]
    public async Task Restart_OfAClientAtItsLimit_StillRefusesItsNextUpload()
    {
        using var client = QuotaServers.NewClient();
        using var other = QuotaServers.NewClient();
        await using (var first = await StartAsync())
        {
            for (var i = 0; i < QuotaServers.PerClient; i++)
            {
                using var created = await PostAsync(first, client);
                Assert.Equal(HttpStatusCode.Created, created.StatusCode);
            }
        }

        await using var second = await StartAsync();
        using (var refused = await PostAsync(second, client))
        {
            await ProblemAssert.IsProblemAsync(refused, HttpStatusCode.TooManyRequests);
        }

        using var admitted = await PostAsync(second, other);
        Assert.Equal(HttpStatusCode.Created, admitted.StatusCode);
    }

    private async Task<FreightServer> StartAsync()
    {
        var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _directory, .. QuotaServers.Arguments]);
        await server.StartAsync();
        return server;
    }

    private static async Task<HttpResponseMessage> PostAsync(FreightServer server, HttpClient client)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, new Uri(new Uri(server.Urls.Single()), "/tus/"));
        request.Headers.Add("Tus-Resumable", TusApi.Version);
        request.Headers.Add("Upload-Length", "10");
        return await client.SendAsync(request);
    }
}

/// <summary>
/// The counts against the sweep's listings, which race creations and removals: a listing that began before an
/// upload reached the store must not drop it, one that saw an upload removed meanwhile must not bring it back,
/// and one from a fresh start (or another node) counts what it found.
/// </summary>
public sealed class TusQuotaCountTests
{
    private readonly TusQuota _quota = new(new TusOptions { MaxUnfinishedUploadsPerClient = 1, MaxPendingBytes = 1000 }, new MemoryResumableUploadStore(new MemoryObjectStore()));

    [Fact]
    public void Reconcile_OfAListingThatMissedAnUploadBeingCreated_KeepsCountingIt()
    {
        var creating = Upload("a", 100);
        _quota.Admit(creating);

        _quota.Reconcile([], _quota.BeginListing());

        Assert.Equal(100, _quota.PendingBytes);
        Assert.Equal(StatusCodes.Status429TooManyRequests, Assert.Throws<ProblemException>(() => _quota.Admit(Upload("a", 1))).Status);
    }

    [Fact]
    public void Reconcile_OfAListingThatSawAnUploadRemovedMeanwhile_DoesNotCountItAgain()
    {
        var removed = Upload("a", 100);
        _quota.Admit(removed);
        _quota.Stored(removed);
        var since = _quota.BeginListing();
        _quota.Forget(removed.Id);

        _quota.Reconcile([removed], since);

        Assert.Equal(0, _quota.PendingBytes);
        _quota.Admit(Upload("a", 1));
    }

    [Fact]
    public void Reconcile_OfUploadsTheStoreHolds_CountsThemForTheirClientsAndWhatTheyStillExpect()
    {
        var found = Upload("a", 700) with { Offset = 200 };

        _quota.Reconcile([found, Upload("b", 100) with { Completion = new ResumableCompletion("k", "\"e\"", null, null, DateTimeOffset.UtcNow) }], _quota.BeginListing());

        Assert.Equal(500, _quota.PendingBytes);
        Assert.Equal(StatusCodes.Status429TooManyRequests, Assert.Throws<ProblemException>(() => _quota.Admit(Upload("a", 1))).Status);
        Assert.Equal(StatusCodes.Status507InsufficientStorage, Assert.Throws<ProblemException>(() => _quota.Admit(Upload("b", 501))).Status);
        _quota.Admit(Upload("b", 500));
    }

    private static ResumableUpload Upload(string client, long length) =>
        new() { Id = ResumableUploadId.New(), Length = length, Client = client, CreatedAt = DateTimeOffset.UtcNow };
}

/// <summary>The quota fixtures' limits and clients from loopback addresses of their own.</summary>
public static class QuotaServers
{
    /// <summary>Unfinished uploads per client (Tus:MaxUnfinishedUploadsPerClient).</summary>
    public const int PerClient = 3;

    /// <summary>Bytes all unfinished uploads may still expect (Tus:MaxPendingBytes).</summary>
    public const int PendingBytes = 1_000_000;

    internal static readonly string[] Arguments =
    [
        "--Freight:Tus:MaxUnfinishedUploadsPerClient", PerClient.ToString(CultureInfo.InvariantCulture),
        "--Freight:Tus:MaxPendingBytes", PendingBytes.ToString(CultureInfo.InvariantCulture),
        "--Freight:Files:MaxConcurrentUploadsPerClient", "64",
    ];

    /// <summary>A MinFreeBytes no volume reaches: every promise of a byte is past the free space.</summary>
    internal const string Unreachable = "4611686018427387904";

    private static int s_lastClient = 1;

    /// <summary>An HttpClient whose connections come from a loopback address no other client here uses (127.0.x.y, y ≥ 2).</summary>
    public static HttpClient NewClient()
    {
        var n = Interlocked.Increment(ref s_lastClient);
        var local = new IPAddress([127, 0, (byte)(n / 250), (byte)(2 + (n % 250))]);
        return ClientAddress.ClientFrom(local, TimeSpan.FromMinutes(2));
    }
}

public sealed class QuotaFileSystemTusServer() : TusServer(QuotaServers.Arguments);

public sealed class QuotaMemoryTusServer() : TusServer([.. QuotaServers.Arguments, "--Freight:Files:Store", "Memory"])
{
    public override string? FilesDirectory => null;

    public override string? TusDirectory => null;
}

/// <summary>The S3 store in a bucket of its own (see <see cref="S3TusServer"/>).</summary>
public sealed class QuotaS3TusServer() : TusServer([.. QuotaServers.Arguments, "--Freight:S3:PartBytes", "5242880"])
{
    private readonly FixtureBucket _bucket = new();

    public override string? FilesDirectory => null;

    public override string? TusDirectory => null;

    public override bool StoresBytesAsTheyArrive => false;

    protected override Task<string[]> StartArgumentsAsync() => _bucket.CreateAsync(GetType().Name);

    protected override Task AfterStopAsync() => _bucket.DeleteAsync();
}

public sealed class FullFileSystemTusServer() : TusServer("--Freight:Tus:MinFreeBytes", QuotaServers.Unreachable);

public sealed class FullMemoryTusServer() : TusServer("--Freight:Tus:MinFreeBytes", QuotaServers.Unreachable, "--Freight:Files:Store", "Memory")
{
    public override string? FilesDirectory => null;

    public override string? TusDirectory => null;
}

public sealed class ExpiringQuotaTusServer() : TusServer(
    "--Freight:Tus:MaxUnfinishedUploadsPerClient", "1", "--Freight:Tus:ExpireAfter", "00:00:01", "--Freight:Tus:SweepInterval", "00:00:00.200");
