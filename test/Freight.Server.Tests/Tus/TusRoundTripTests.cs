using System.Net;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// Create, PATCH in chunks, and the finished upload is a file of the files API holding every byte, with
/// the ETag a PUT of the same bytes gets and the source's SHA-256 — for several sizes and chunkings, over
/// HTTP/1.1 and HTTP/2. The file exists only once the last byte arrived. One contract, run against each store.
/// </summary>
public abstract class TusRoundTripTests(TusServer server)
{
    public static TheoryData<int, int, Protocol> Cases()
    {
        var cases = new TheoryData<int, int, Protocol>();
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            cases.Add(1, 1, protocol);
            cases.Add(65_537, 65_536, protocol);
            cases.Add(3 * Payloads.MiB, Payloads.MiB, protocol);
            cases.Add((3 * Payloads.MiB) + 17, Payloads.MiB, protocol);
            cases.Add(3 * Payloads.MiB, 3 * Payloads.MiB, protocol);
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Upload_InChunks_BecomesTheFileWithEveryByte(int size, int chunkSize, Protocol protocol)
    {
        var key = NewFileName($"payload-{size}.bin");
        var content = Content(size, seed: (ulong)size);
        var path = await CreateAsync(server, size, key, protocol);

        for (var offset = 0; offset < size; offset += chunkSize)
        {
            // Not a file until the last byte: a reader never sees a partial upload.
            await AssertNoFileAsync(server, key);
            var chunk = content[offset..Math.Min(size, offset + chunkSize)];
            using var response = await PatchAsync(server, path, offset, chunk, protocol);
            await AssertStatusAsync(response, HttpStatusCode.NoContent);
            Assert.Equal(protocol == Protocol.Http2 ? HttpVersion.Version20 : HttpVersion.Version11, response.Version);
            AssertResumable(response);
            Assert.Equal(offset + chunk.Length, Offset(response));
            if (offset + chunk.Length < size)
            {
                Expires(response);
                Assert.Null(Header(response, "Content-Location"));
            }
            else
            {
                Assert.Null(Header(response, "Upload-Expires"));
                Assert.Equal("/files/" + key, Header(response, "Content-Location"));
            }
        }

        await AssertFileAsync(server, key, content);
        using var head = await HeadAsync(server, path, protocol);
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(size, Offset(head));
        Assert.Equal(Invariant(size), Header(head, "Upload-Length"));
        Assert.Equal("/files/" + key, Header(head, "Content-Location"));
        Assert.Null(Header(head, "Upload-Expires"));
        if (server.TusDirectory is not null)
        {
            // The bytes moved to the files store: none stay behind.
            Assert.Null(server.StoredBytes(Id(path)));
        }
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Upload_ZeroBytes_IsAnEmptyFile(Protocol protocol)
    {
        var key = NewFileName("zero.bin");

        var path = await CreateAsync(server, 0, key, protocol);

        await AssertFileAsync(server, key, []);
        Assert.Equal(0, await OffsetAsync(server, path));
        using var put = await PutAsync(server, NewFileName("zero-put.bin"), []);
        Assert.Equal(ETag([]), put.Headers.ETag?.ToString());
    }

    [Fact]
    public async Task FinishedUpload_HasTheETagAPutOfTheSameBytesGets()
    {
        var content = Content(1_234_567, seed: 111);
        var key = NewFileName();
        var path = await CreateAsync(server, content.Length, key);
        await PatchAllAsync(server, path, content, 500_000);

        using var put = await PutAsync(server, NewFileName("put.bin"), content);
        await AssertStatusAsync(put, HttpStatusCode.Created);

        using var get = await SendAsync(server, HttpMethod.Get, "/files/" + key);
        Assert.Equal(put.Headers.ETag?.ToString(), get.Headers.ETag?.ToString());
        Assert.Equal("\"" + Freight.Hashing.HashHex.ToHex(System.IO.Hashing.XxHash128.HashToUInt128(content)) + "\"", get.Headers.ETag?.ToString());
    }

    [Fact]
    public async Task Upload_ReplacesAnExistingFileOnlyWhenComplete()
    {
        var key = NewFileName();
        var old = Content(100_000, seed: 112);
        await CreateAsync(server, key, old);
        var content = Content(600_000, seed: 113);
        var path = await CreateAsync(server, content.Length, key);

        await PatchAllAsync(server, path, content[..300_000], 300_000);
        await AssertStoredAsync(server, key, old);
        await PatchAllAsync(server, path, content, 300_000, from: 300_000);

        await AssertFileAsync(server, key, content);
    }

    [Fact]
    public async Task TwentyConcurrentUploads_ToDifferentUploads_AllVerify()
    {
        var contents = Enumerable.Range(0, 20).Select(i => Content(400_000 + (i * 1000), seed: 120 + (ulong)i)).ToArray();
        var keys = contents.Select(_ => NewFileName()).ToArray();

        await Task.WhenAll(contents.Select(async (content, i) =>
        {
            var protocol = i % 2 == 0 ? Protocol.Http11 : Protocol.Http2;
            var path = await CreateAsync(server, content.Length, keys[i], protocol);
            var location = await PatchAllAsync(server, path, content, 150_000, protocol: protocol);
            Assert.Equal("/files/" + keys[i], location);
        }));

        for (var i = 0; i < contents.Length; i++)
        {
            await AssertFileAsync(server, keys[i], contents[i]);
        }
    }
}

public sealed class TusRoundTripFileSystemTests(FileSystemTusServer server) : TusRoundTripTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusRoundTripMemoryTests(MemoryTusServer server) : TusRoundTripTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusRoundTripS3Tests(S3TusServer server) : TusRoundTripTests(server), IClassFixture<S3TusServer>;

public sealed class TusRoundTripSampleTests(SampleTusServer server) : TusRoundTripTests(server), IClassFixture<SampleTusServer>;
