using System.IO.Hashing;
using System.Net;
using Amazon.S3;
using Freight.Bench.Load;
using Freight.Bench.Peers;
using Freight.Lab.Payload;

namespace Freight.Bench.Tests.S3;

/// <summary>
/// The RGW peer of <c>--store s3</c> against the real Ceph RGW: it answers S3 with our keys and reports its version
/// and daemons; peer/s3-direct stores and reads bytes through presigned URLs with the suite's own verified PUT and
/// GET, which catch wrong bytes; and a disposed cluster is gone, daemons and directory.
/// </summary>
public sealed class RgwTests(RgwPeer rgw) : IClassFixture<RgwPeer>
{
    private const int PayloadBytes = 3 * 1024 * 1024 + 5;

    [Fact]
    public async Task StartAsync_Installed_AnswersS3WithVersionAndDataPathDaemons()
    {
        var server = rgw.Server;
        var bucket = "rgw-tests-" + Guid.NewGuid().ToString("N")[..8];

        await server.CreateBucketAsync(bucket, CancellationToken.None);
        var buckets = await server.Client.ListBucketsAsync();

        Assert.Contains(buckets.Buckets, b => b.BucketName == bucket);
        Assert.Equal(IPAddress.Loopback.ToString(), server.Endpoint.Host);
        Assert.Matches(@"^\d+\.\d+\.\d+$", server.Version);
        Assert.StartsWith(Path.Combine("/tmp", "freight-rgw-"), server.WorkDirectory, StringComparison.Ordinal);
        Assert.Equal(["ceph-mgr", "ceph-mon", "ceph-osd", "radosgw"], server.Daemons().Select(d => d.Name).Order());
        var dataPath = server.CaptureDataPath();
        Assert.NotNull(dataPath);
        Assert.True(dataPath.Value.CpuSeconds > 0);
        Assert.True(dataPath.Value.WorkingSetBytes > 0);
    }

    [Fact]
    public void FreightStoreArguments_Bucket_SelectTheS3StoreOnThisServer()
    {
        var arguments = rgw.Server.FreightStoreArguments("freight-files");

        Assert.Equal(
            [
                "--Freight:Files:Store", "S3",
                "--Freight:S3:Endpoint", rgw.Server.Endpoint.GetLeftPart(UriPartial.Authority),
                "--Freight:S3:Bucket", "freight-files",
                "--Freight:S3:AccessKey", Rgw.AccessKey,
                "--Freight:S3:SecretKey", Rgw.SecretKey,
            ],
            arguments);
    }

    [Fact]
    public async Task S3Direct_PutThenGet_VerifiedByMd5ETagAndContentHash()
    {
        var (direct, client) = await NewDirectAsync();
        using var _ = client;
        var payload = DeterministicPayload.Create(PayloadBytes);
        var hash = XxHash128.HashToUInt128(payload);

        var putSeconds = await direct.PutAsync("object.bin", payload, S3Direct.ETagOf(payload), CancellationToken.None);
        var (getSeconds, firstByte) = await direct.GetAsync("object.bin", payload.LongLength, hash, CancellationToken.None);

        Assert.True(putSeconds > 0);
        Assert.True(getSeconds > 0);
        Assert.NotNull(firstByte);
        Assert.True(firstByte <= getSeconds);
        var stored = await rgw.Server.Client.GetObjectMetadataAsync(direct.Bucket, "object.bin");
        Assert.Equal(PayloadBytes, stored.ContentLength);
        Assert.Equal(S3Direct.ETagOf(payload), stored.ETag);
    }

    [Fact]
    public async Task S3Direct_PutSameKeyAgain_OverwritesAndFreesTheOldBytes()
    {
        var (direct, client) = await NewDirectAsync();
        using var _ = client;
        var first = DeterministicPayload.Create(PayloadBytes);
        var second = DeterministicPayload.Create(PayloadBytes + 1);

        await direct.PutAsync("object.bin", first, S3Direct.ETagOf(first), CancellationToken.None);
        await direct.PutAsync("object.bin", second, S3Direct.ETagOf(second), CancellationToken.None);
        await rgw.Server.CollectGarbageAsync(CancellationToken.None);

        await direct.GetAsync("object.bin", second.LongLength, XxHash128.HashToUInt128(second), CancellationToken.None);
    }

    [Fact]
    public async Task S3Direct_PutAnswerNotThePayloadsETag_FailsVerification()
    {
        var (direct, client) = await NewDirectAsync();
        using var _ = client;
        var payload = DeterministicPayload.Create(PayloadBytes);
        var other = S3Direct.ETagOf(DeterministicPayload.Create(PayloadBytes - 1));

        var failure = await Assert.ThrowsAsync<VerificationException>(() => direct.PutAsync("object.bin", payload, other, CancellationToken.None));

        Assert.Contains(S3Direct.ETagOf(payload), failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task S3Direct_GetOtherBytes_FailsVerification()
    {
        var (direct, client) = await NewDirectAsync();
        using var _ = client;
        var payload = DeterministicPayload.Create(PayloadBytes);
        await direct.PutAsync("object.bin", payload, S3Direct.ETagOf(payload), CancellationToken.None);
        var other = DeterministicPayload.Create(PayloadBytes + 1);

        var failure = await Assert.ThrowsAsync<VerificationException>(() =>
            direct.GetAsync("object.bin", other.LongLength, XxHash128.HashToUInt128(other), CancellationToken.None));

        Assert.Contains($"{PayloadBytes} bytes arrived", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task S3Direct_GetMissingObject_FailsWithTheStatus()
    {
        var (direct, client) = await NewDirectAsync();
        using var _ = client;

        await Assert.ThrowsAnyAsync<Exception>(() => direct.GetAsync("missing.bin", 1, 0, CancellationToken.None));
    }

    [Fact]
    public void ETagOf_Payload_QuotedLowerCaseMd5()
    {
        // RFC 1321's test vector for "abc".
        Assert.Equal("\"900150983cd24fb0d6963f7d28e17f72\"", S3Direct.ETagOf("abc"u8));
    }

    [Fact]
    public async Task DisposeAsync_Started_StopsEveryDaemonAndRemovesItsDirectory()
    {
        var (server, unavailable) = await Rgw.StartAsync(CancellationToken.None);
        Assert.True(server is not null, $"The RGW peer cannot run here: {unavailable}");
        var daemons = server.Daemons();
        Assert.Equal(4, daemons.Count);

        await server.DisposeAsync();

        Assert.True(server.IsStopped);
        Assert.False(Directory.Exists(server.WorkDirectory));
        Assert.All(daemons, d => Assert.False(IsRunning(d.ProcessId, d.Name), $"{d.Name} ({d.ProcessId}) still runs"));
        using var probe = new HttpClient();
        await Assert.ThrowsAsync<HttpRequestException>(() => probe.GetAsync(server.Endpoint));
    }

    private static bool IsRunning(int processId, string name)
    {
        try
        {
            return File.ReadAllText($"/proc/{processId}/comm").Trim() == name;
        }
        catch (IOException)
        {
            return false;
        }
    }

    /// <summary>peer/s3-direct on a new bucket of its own, with a client shaped like the bench's.</summary>
    private async Task<(S3Direct Direct, HttpClients Clients)> NewDirectAsync()
    {
        var clients = new HttpClients([]);
        var direct = new S3Direct(rgw.Server, "direct-" + Guid.NewGuid().ToString("N")[..8], clients.Client);
        await direct.CreateBucketAsync(CancellationToken.None);
        return (direct, clients);
    }
}
