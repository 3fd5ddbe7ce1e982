using System.Net;
using System.Security.Cryptography;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// The checksum extension: a chunk whose Upload-Checksum matches is kept; one that does not is refused with
/// 460 and taken back whole (the upload stays where it was, the stored bytes are the same); an algorithm the
/// server does not offer is 400. One contract, run against each store.
/// </summary>
public abstract class TusChecksumTests(TusServer server)
{
    // Chunks longer than the server's 256 KiB batches: a mismatch is found after some bytes were stored.
    private const int Chunk = 600_000;

    private static readonly byte[] s_content = Content(3 * Chunk, seed: 91);

    public static string Checksum(string algorithm, ReadOnlySpan<byte> chunk) => algorithm + " " + Convert.ToBase64String(algorithm switch
    {
        "sha1" => SHA1.HashData(chunk),
        "sha256" => SHA256.HashData(chunk),
        "sha512" => SHA512.HashData(chunk),
        "md5" => MD5.HashData(chunk),
        _ => throw new ArgumentOutOfRangeException(nameof(algorithm)),
    });

    [Theory]
    [InlineData("sha1", Protocol.Http11)]
    [InlineData("sha1", Protocol.Http2)]
    [InlineData("sha256", Protocol.Http11)]
    [InlineData("sha256", Protocol.Http2)]
    [InlineData("sha512", Protocol.Http11)]
    [InlineData("md5", Protocol.Http11)]
    public async Task Patch_MatchingChecksums_KeepEveryChunkAndMakeTheFile(string algorithm, Protocol protocol)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key, protocol);

        for (var offset = 0; offset < s_content.Length; offset += Chunk)
        {
            var chunk = s_content[offset..(offset + Chunk)];
            using var response = await PatchAsync(server, path, offset, chunk, protocol, ("Upload-Checksum", Checksum(algorithm, chunk)));
            await AssertStatusAsync(response, HttpStatusCode.NoContent);
            Assert.Equal(offset + Chunk, Offset(response));
        }

        await AssertFileAsync(server, key, s_content);
    }

    [Theory]
    [InlineData("sha1", Protocol.Http11)]
    [InlineData("sha1", Protocol.Http2)]
    [InlineData("sha256", Protocol.Http11)]
    [InlineData("sha256", Protocol.Http2)]
    public async Task Patch_MismatchedChecksum_Returns460AndDiscardsTheChunk(string algorithm, Protocol protocol)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key, protocol);
        await PatchAllAsync(server, path, s_content[..Chunk], Chunk, protocol: protocol);
        var chunk = s_content[Chunk..(2 * Chunk)];
        var corrupted = (byte[])chunk.Clone();
        corrupted[^1] ^= 0xFF;

        using (var response = await PatchAsync(server, path, Chunk, corrupted, protocol, ("Upload-Checksum", Checksum(algorithm, chunk))))
        {
            await AssertRefusedAsync(response, (HttpStatusCode)460);
        }

        await AssertHoldsAsync(server, path, s_content, Chunk, key);
        // The same chunk, intact, is taken; the file holds none of the corrupted bytes.
        using (var retry = await PatchAsync(server, path, Chunk, chunk, protocol, ("Upload-Checksum", Checksum(algorithm, chunk))))
        {
            await AssertStatusAsync(retry, HttpStatusCode.NoContent);
            Assert.Equal(2 * Chunk, Offset(retry));
        }

        await PatchAllAsync(server, path, s_content, Chunk, from: 2 * Chunk, protocol: protocol);
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task Patch_MismatchedChecksumOnTheLastChunk_Returns460AndMakesNoFile()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..(2 * Chunk)], Chunk);

        using (var response = await PatchAsync(server, path, 2 * Chunk, s_content[(2 * Chunk)..], headers: ("Upload-Checksum", Checksum("sha1", Content(Chunk, seed: 92)))))
        {
            await AssertRefusedAsync(response, (HttpStatusCode)460);
        }

        await AssertHoldsAsync(server, path, s_content, 2 * Chunk, key);
    }

    [Fact]
    public async Task PostWithBody_MatchingChecksum_Returns201AndMakesTheFile()
    {
        var key = NewFileName();

        using var response = await PostAsync(server,
            [("Upload-Length", Invariant(Chunk)), ("Upload-Metadata", Metadata(("filename", key))), ("Upload-Checksum", Checksum("sha1", s_content.AsSpan(0, Chunk)))],
            Body(s_content[..Chunk]));

        await CreatedAsync(response);
        Assert.Equal(Chunk, Offset(response));
        await AssertFileAsync(server, key, s_content[..Chunk]);
    }

    [Fact]
    public async Task PostWithBody_MismatchedChecksum_Returns460AndMakesNoFile()
    {
        // creation-with-upload: "similar rules as for the PATCH request and response apply" — a body whose
        // Upload-Checksum does not match is not kept, let alone made a file.
        var key = NewFileName();
        var corrupted = s_content[..Chunk];
        corrupted[^1] ^= 0xFF;

        using var response = await PostAsync(server,
            [("Upload-Length", Invariant(Chunk)), ("Upload-Metadata", Metadata(("filename", key))), ("Upload-Checksum", Checksum("sha1", s_content.AsSpan(0, Chunk)))],
            Body(corrupted));

        // The file first: whatever the status, the corrupted bytes must not have become it.
        Assert.NotEqual(ETag(s_content.AsSpan(0, Chunk)), ETag(corrupted));
        await AssertNoFileAsync(server, key);
        await AssertRefusedAsync(response, (HttpStatusCode)460);
    }

    [Theory]
    [InlineData("crc32 AAAAAA==")]
    [InlineData("SHA1 AAAAAAAAAAAAAAAAAAAAAAAAAAA=")]
    [InlineData("sha3-256 AAAAAA==")]
    public async Task Patch_UnsupportedChecksumAlgorithm_Returns400AndChangesNothing(string checksum)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);

        using var response = await PatchAsync(server, path, 1000, s_content[1000..Chunk], headers: ("Upload-Checksum", checksum));

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
    }

    [Theory]
    [InlineData("sha1")]
    [InlineData("sha1 not*base64")]
    [InlineData("sha1 AAAA AAAA")]
    public async Task Patch_MalformedChecksum_Returns400AndChangesNothing(string checksum)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);

        using var response = await PatchAsync(server, path, 0, s_content[..1000], headers: ("Upload-Checksum", checksum));

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        await AssertHoldsAsync(server, path, s_content, 0, key);
    }
}

public sealed class TusChecksumFileSystemTests(FileSystemTusServer server) : TusChecksumTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusChecksumMemoryTests(MemoryTusServer server) : TusChecksumTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusChecksumS3Tests(S3TusServer server) : TusChecksumTests(server), IClassFixture<S3TusServer>;

public sealed class TusChecksumSampleTests(SampleTusServer server) : TusChecksumTests(server), IClassFixture<SampleTusServer>;
