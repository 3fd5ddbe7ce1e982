using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// tus 1.0 core (OPTIONS, HEAD, PATCH) and termination: every status the protocol names for a refused
/// request, each followed by a look at the upload — same offset, same stored bytes, no file. One contract,
/// run against each store.
/// </summary>
public abstract class TusCoreTests(TusServer server)
{
    private static readonly byte[] s_content = Content(600_000, seed: 71);

    [Theory]
    [InlineData("/tus/")]
    [InlineData("/tus")]
    [InlineData("/tus/0123456789abcdef0123456789abcdef")]
    public async Task Options_WithoutTusResumable_Returns204WithTheServersCapabilities(string path)
    {
        using var request = Request(server, HttpMethod.Options, path, resumable: null);

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.NoContent, response.StatusCode);
        AssertResumable(response);
        Assert.Equal("1.0.0", Header(response, "Tus-Version"));
        Assert.Equal(
            new[] { "checksum", "concatenation", "creation", "creation-defer-length", "creation-with-upload", "expiration", "termination" },
            Header(response, "Tus-Extension")!.Split(',', StringSplitOptions.TrimEntries).Order(StringComparer.Ordinal));
        Assert.Equal(new[] { "md5", "sha1", "sha256", "sha512" }, Header(response, "Tus-Checksum-Algorithm")!.Split(',', StringSplitOptions.TrimEntries).Order(StringComparer.Ordinal));
        Assert.True(long.Parse(Header(response, "Tus-Max-Size")!, NumberStyles.None, CultureInfo.InvariantCulture) > 0);
    }

    public static TheoryData<string, string?> VersionCases() => new()
    {
        { "POST", null }, { "HEAD", null }, { "PATCH", null }, { "DELETE", null },
        { "POST", "0.2.2" }, { "HEAD", "0.2.2" }, { "PATCH", "0.2.2" }, { "DELETE", "0.2.2" },
        { "PATCH", "1.0" },
    };

    [Theory]
    [MemberData(nameof(VersionCases))]
    public async Task Request_WithoutTusResumable100_Returns412WithTusVersionAndChangesNothing(string method, string? resumable)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);
        var filesBefore = server.TusFiles();

        using var request = Request(server, new HttpMethod(method), method == "POST" ? "/tus/" : path, resumable: resumable);
        if (method == "PATCH")
        {
            request.Content = Body(s_content[1000..2000]);
            AddHeaders(request, ("Upload-Offset", "1000"));
        }
        else if (method == "POST")
        {
            AddHeaders(request, ("Upload-Length", "10"));
        }

        using var response = await server.Client.SendAsync(request);

        await AssertRefusedAsync(response, HttpStatusCode.PreconditionFailed);
        Assert.Equal("1.0.0", Header(response, "Tus-Version"));
        Assert.Equal(filesBefore, server.TusFiles());
        await AssertHoldsAsync(server, path, s_content, 1000, key);
    }

    [Fact]
    public async Task Head_NewUpload_Returns200WithOffsetLengthMetadataAndNoStore()
    {
        var key = NewFileName("head.bin");
        var metadata = Metadata(("filename", key), ("filetype", "application/x-test"), ("empty", ""), ("flag", null));
        using var created = await PostAsync(server, [("Upload-Length", "600000"), ("Upload-Metadata", metadata)]);
        var path = await CreatedAsync(created);
        Assert.True(Expires(created) > DateTimeOffset.UtcNow, "Upload-Expires is not in the future");
        Assert.Equal("0", Header(created, "Upload-Offset"));

        using var response = await HeadAsync(server, path);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        AssertResumable(response);
        Assert.Equal(0, Offset(response));
        Assert.Equal("600000", Header(response, "Upload-Length"));
        Assert.Null(Header(response, "Upload-Defer-Length"));
        Assert.Equal(metadata, Header(response, "Upload-Metadata"));
        Assert.True(response.Headers.CacheControl?.NoStore, "Cache-Control: no-store");
        Assert.Equal(Expires(created), Expires(response));
        Assert.Null(Header(response, "Upload-Concat"));
        Assert.Null(Header(response, "Content-Location"));
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [InlineData("0123456789abcdef0123456789abcdef")]
    [InlineData("0123456789ABCDEF0123456789ABCDEF")]
    [InlineData("0123456789abcdef0123456789abcde")]
    [InlineData("not-an-upload")]
    [InlineData("..%2F..%2Ffiles")]
    public async Task HeadPatchDelete_UnknownOrMalformedId_Return404(string id)
    {
        var path = "/tus/" + id;

        using (var head = await HeadAsync(server, path))
        {
            await AssertRefusedAsync(head, HttpStatusCode.NotFound);
        }

        using (var patch = await PatchAsync(server, path, 0, s_content[..100]))
        {
            await AssertRefusedAsync(patch, HttpStatusCode.NotFound);
        }

        using var delete = await DeleteAsync(server, path);
        await AssertRefusedAsync(delete, HttpStatusCode.NotFound);
    }

    [Theory]
    [InlineData("application/octet-stream")]
    [InlineData("text/plain")]
    [InlineData(null)]
    public async Task Patch_WrongContentType_Returns415AndChangesNothing(string? contentType)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);

        using var request = Request(server, HttpMethod.Patch, path);
        request.Content = Body(s_content[1000..], contentType);
        AddHeaders(request, ("Upload-Offset", "1000"));
        using var response = await server.Client.SendAsync(request);

        await AssertRefusedAsync(response, HttpStatusCode.UnsupportedMediaType);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("-1")]
    [InlineData("1e3")]
    [InlineData("0x10")]
    [InlineData("1000, 1000")]
    public async Task Patch_MissingOrMalformedUploadOffset_Returns400AndChangesNothing(string? offset)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);

        using var request = Request(server, HttpMethod.Patch, path);
        request.Content = Body(s_content[1000..]);
        if (offset is not null)
        {
            AddHeaders(request, ("Upload-Offset", offset));
        }

        using var response = await server.Client.SendAsync(request);

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(999)]
    [InlineData(1001)]
    [InlineData(600_000)]
    public async Task Patch_OffsetOtherThanTheUploads_Returns409AndChangesNothing(long offset)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);
        var wrong = Content(1000, seed: 72);

        using var response = await PatchAsync(server, path, offset, wrong);

        await AssertRefusedAsync(response, HttpStatusCode.Conflict);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
        // The upload goes on from where it was, and the file holds none of the refused bytes.
        await PatchAllAsync(server, path, s_content, 256 * 1024, from: 1000);
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task Patch_ChunkPastUploadLengthWithContentLength_Returns413AndChangesNothing()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);
        var tooLong = Content(s_content.Length, seed: 73);

        using var response = await PatchAsync(server, path, 1000, tooLong);

        await AssertRefusedAsync(response, HttpStatusCode.RequestEntityTooLarge);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
        await PatchAllAsync(server, path, s_content, s_content.Length, from: 1000);
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task Patch_ChunkedBodyPastUploadLength_Returns413AndDiscardsTheWholeChunk()
    {
        // Longer than several of the server's 256 KiB batches: some are stored before the excess shows, then taken back.
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);
        var tooLong = Content(2 * Payloads.MiB, seed: 74);

        var response = await PatchChunkedRefusedPartWayAsync(server, path, 1000, tooLong);

        AssertRefused(response, HttpStatusCode.RequestEntityTooLarge);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
        await PatchAllAsync(server, path, s_content, s_content.Length, from: 1000);
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task Patch_UploadLengthOtherThanTheKnownOne_Returns400AndChangesNothing()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);

        using var response = await PatchAsync(server, path, 1000, s_content[1000..2000], headers: ("Upload-Length", "700000"));

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
    }

    [Fact]
    public async Task Patch_UploadLengthEqualToTheKnownOne_IsAccepted()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);

        using var response = await PatchAsync(server, path, 0, s_content, headers: ("Upload-Length", "600000"));

        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        Assert.Equal(s_content.Length, Offset(response));
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task Patch_AfterTheLastByte_Returns413AndTheFileStaysWhole()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content, 300_000);

        using var more = await PatchAsync(server, path, s_content.Length, Content(10, seed: 75));

        await AssertRefusedAsync(more, HttpStatusCode.RequestEntityTooLarge);
        Assert.Equal(s_content.Length, await OffsetAsync(server, path));
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task Patch_EmptyAtTheCurrentOffset_Returns204AndTheSameOffset()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);

        using var response = await PatchAsync(server, path, 1000, []);

        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        AssertResumable(response);
        Assert.Equal(1000, Offset(response));
        Expires(response);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
    }

    [Fact]
    public async Task Delete_UnfinishedUpload_Returns204ThenTheUploadAndItsBytesAreGone()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..300_000], 300_000);

        using var deleted = await DeleteAsync(server, path);

        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        AssertResumable(deleted);
        using (var head = await HeadAsync(server, path))
        {
            await AssertRefusedAsync(head, HttpStatusCode.NotFound);
        }

        using (var patch = await PatchAsync(server, path, 300_000, s_content[300_000..]))
        {
            await AssertRefusedAsync(patch, HttpStatusCode.NotFound);
        }

        using (var again = await DeleteAsync(server, path))
        {
            await AssertRefusedAsync(again, HttpStatusCode.NotFound);
        }

        if (server.TusDirectory is not null)
        {
            Assert.DoesNotContain(server.TusFiles(), name => name.StartsWith(Id(path), StringComparison.Ordinal));
        }

        await AssertNoFileAsync(server, key);
    }

    [Fact]
    public async Task Delete_FinishedUpload_Returns204AndTheFileStays()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content, s_content.Length);

        using var deleted = await DeleteAsync(server, path);

        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, await HeadStatusAsync(server, path));
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task PostWithMethodOverride_PatchHeadDelete_ActAsThoseMethods()
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);

        using (var patch = Request(server, HttpMethod.Post, path))
        {
            patch.Content = Body(s_content[..1000]);
            AddHeaders(patch, ("X-HTTP-Method-Override", "PATCH"), ("Upload-Offset", "0"));
            using var patched = await server.Client.SendAsync(patch);
            await AssertStatusAsync(patched, HttpStatusCode.NoContent);
            Assert.Equal(1000, Offset(patched));
        }

        using (var head = Request(server, HttpMethod.Post, path))
        {
            AddHeaders(head, ("X-HTTP-Method-Override", "HEAD"));
            using var headed = await server.Client.SendAsync(head);
            await AssertStatusAsync(headed, HttpStatusCode.OK);
            Assert.Equal(1000, Offset(headed));
            Assert.Equal("600000", Header(headed, "Upload-Length"));
        }

        await AssertHoldsAsync(server, path, s_content, 1000, key);

        using (var delete = Request(server, HttpMethod.Post, path))
        {
            AddHeaders(delete, ("X-HTTP-Method-Override", "DELETE"));
            using var deleted = await server.Client.SendAsync(delete);
            Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        }

        Assert.Equal(HttpStatusCode.NotFound, await HeadStatusAsync(server, path));
    }

    [Theory]
    [InlineData(null)]
    [InlineData("GET")]
    [InlineData("PUT")]
    public async Task PostOnAnUpload_WithoutAUsableOverride_Returns405AndChangesNothing(string? method)
    {
        var key = NewFileName();
        var path = await CreateAsync(server, s_content.Length, key);

        using var request = Request(server, HttpMethod.Post, path);
        request.Content = Body(s_content[..1000]);
        AddHeaders(request, ("Upload-Offset", "0"));
        if (method is not null)
        {
            AddHeaders(request, ("X-HTTP-Method-Override", method));
        }

        using var response = await server.Client.SendAsync(request);

        await AssertRefusedAsync(response, HttpStatusCode.MethodNotAllowed);
        await AssertHoldsAsync(server, path, s_content, 0, key);
    }
}

public sealed class TusCoreFileSystemTests(FileSystemTusServer server) : TusCoreTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusCoreMemoryTests(MemoryTusServer server) : TusCoreTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusCoreS3Tests(S3TusServer server) : TusCoreTests(server), IClassFixture<S3TusServer>;

public sealed class TusCoreSampleTests(SampleTusServer server) : TusCoreTests(server), IClassFixture<SampleTusServer>;
