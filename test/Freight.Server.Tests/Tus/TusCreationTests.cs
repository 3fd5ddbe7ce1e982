using System.Net;
using System.Net.Http.Headers;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// The creation, creation-with-upload and creation-defer-length extensions: what a POST must carry, what
/// it is refused for (and that a refusal creates nothing), where the finished file lands and with which
/// Content-Type. One contract, run against each store.
/// </summary>
public abstract class TusCreationTests(TusServer server)
{
    private static readonly byte[] s_content = Content(700_000, seed: 81);

    public static TheoryData<string[]> BadLengthHeaders() => new()
    {
        Array.Empty<string>(),
        new[] { "Upload-Length", "10", "Upload-Defer-Length", "1" },
        new[] { "Upload-Defer-Length", "2" },
        new[] { "Upload-Defer-Length", "true" },
        new[] { "Upload-Length", "-1" },
        new[] { "Upload-Length", "ten" },
        new[] { "Upload-Length", "1.5" },
        new[] { "Upload-Length", "" },
    };

    [Theory]
    [MemberData(nameof(BadLengthHeaders))]
    public async Task Post_WithoutExactlyOneValidLength_Returns400AndCreatesNothing(string[] pairs)
    {
        var before = server.TusFiles();
        var headers = Enumerable.Range(0, pairs.Length / 2).Select(i => (pairs[2 * i], pairs[(2 * i) + 1])).ToArray();

        using var response = await PostAsync(server, headers);

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        Assert.Null(response.Headers.Location);
        Assert.Equal(before, server.TusFiles());
    }

    [Theory]
    [InlineData("filename !!!not-base64")]
    [InlineData("filename YQ==,filename Yg==")]
    [InlineData("filename YQ== extra")]
    [InlineData(",filename YQ==")]
    [InlineData("filename /w==")]
    public async Task Post_MalformedUploadMetadata_Returns400AndCreatesNothing(string metadata)
    {
        var before = server.TusFiles();

        using var response = await PostAsync(server, [("Upload-Length", "10"), ("Upload-Metadata", metadata)]);

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        Assert.Null(response.Headers.Location);
        Assert.Equal(before, server.TusFiles());
    }

    [Theory]
    [InlineData("../x")]
    [InlineData("a//b")]
    [InlineData("a/../b")]
    [InlineData("/abs.bin")]
    [InlineData("folder/")]
    public async Task Post_InvalidFilename_Returns400AndCreatesNothing(string filename)
    {
        var before = server.TusFiles();

        using var response = await PostAsync(server, [("Upload-Length", "10"), ("Upload-Metadata", Metadata(("filename", filename)))]);

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        Assert.Null(response.Headers.Location);
        Assert.Equal(before, server.TusFiles());
    }

    [Fact]
    public async Task Post_LengthAboveTusMaxSize_Returns413WithTusMaxSizeAndCreatesNothing()
    {
        using var options = Request(server, HttpMethod.Options, "/tus/");
        using var capabilities = await server.Client.SendAsync(options);
        var max = long.Parse(Header(capabilities, "Tus-Max-Size")!, System.Globalization.CultureInfo.InvariantCulture);
        var before = server.TusFiles();

        using var response = await PostAsync(server, [("Upload-Length", Invariant(max + 1))]);

        await AssertRefusedAsync(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Equal(Invariant(max), Header(response, "Tus-Max-Size"));
        Assert.Equal(before, server.TusFiles());
    }

    [Fact]
    public async Task Post_UploadLengthZero_MakesTheEmptyFileAtOnce()
    {
        var key = NewFileName("empty.bin");

        using var response = await PostAsync(server, [("Upload-Length", "0"), ("Upload-Metadata", Metadata(("filename", key)))]);

        var path = await CreatedAsync(response);
        Assert.Equal("0", Header(response, "Upload-Offset"));
        Assert.Equal("/files/" + key, Header(response, "Content-Location"));
        await AssertFileAsync(server, key, []);
        using var head = await HeadAsync(server, path);
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(0, Offset(head));
        Assert.Equal("0", Header(head, "Upload-Length"));
        Assert.Equal("/files/" + key, Header(head, "Content-Location"));
        if (server.TusDirectory is not null)
        {
            Assert.Null(server.StoredBytes(Id(path)));
        }
    }

    [Fact]
    public async Task Post_WithoutFilename_TheFileIsNamedAfterTheUpload()
    {
        var path = await CreateAsync(server, s_content.Length);
        var id = Id(path);

        var location = await PatchAllAsync(server, path, s_content, 400_000);

        Assert.Equal("/files/" + id, location);
        using var get = await SendAsync(server, HttpMethod.Get, "/files/" + id);
        await AssertStatusAsync(get, HttpStatusCode.OK);
        Assert.Equal(ETag(s_content), get.Headers.ETag?.ToString());
        Assert.Equal(s_content, await get.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [InlineData("text/plain", "text/plain")]
    [InlineData("image/png", "image/png")]
    [InlineData("not a media type", "application/octet-stream")]
    [InlineData(null, "application/octet-stream")]
    public async Task FinishedUpload_Filetype_IsTheFilesContentTypeWhenValid(string? filetype, string expected)
    {
        var key = NewFileName("typed.bin");
        (string, string?)[] metadata = filetype is null ? [("filename", key)] : [("filename", key), ("filetype", filetype)];
        using var created = await PostAsync(server, [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(metadata))]);
        var path = await CreatedAsync(created);

        await PatchAllAsync(server, path, s_content, s_content.Length);

        using var get = await SendAsync(server, HttpMethod.Get, "/files/" + key);
        await AssertStatusAsync(get, HttpStatusCode.OK);
        Assert.Equal(expected, get.Content.Headers.ContentType?.MediaType);
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task Post_FilenameWithUnicode_LandsUnderThatName()
    {
        var key = NewFileName("résumé ü.bin");
        var path = await CreateAsync(server, s_content.Length, key);

        var location = await PatchAllAsync(server, path, s_content, s_content.Length);

        Assert.Equal("/files/" + string.Join('/', key.Split('/').Select(Uri.EscapeDataString)), location);
        await AssertFileAsync(server, key, s_content);
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task PostWithBody_WholeUpload_Returns201WithOffsetAndMakesTheFile(Protocol protocol)
    {
        var key = NewFileName();

        using var response = await PostAsync(
            server, [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", key)))], Body(s_content), protocol);

        var path = await CreatedAsync(response);
        Assert.Equal(HttpVersionOf(protocol), response.Version);
        Assert.Equal(s_content.Length, Offset(response));
        Assert.Equal("/files/" + key, Header(response, "Content-Location"));
        Assert.Null(Header(response, "Upload-Expires"));
        await AssertFileAsync(server, key, s_content);
        Assert.Equal(s_content.Length, await OffsetAsync(server, path));
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task PostWithBody_FirstPart_Returns201WithItsOffsetAndPatchesFinish(Protocol protocol)
    {
        var key = NewFileName();

        using var response = await PostAsync(
            server, [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", key)))], Body(s_content[..300_000]), protocol);

        var path = await CreatedAsync(response);
        Assert.Equal(300_000, Offset(response));
        Expires(response);
        await AssertHoldsAsync(server, path, s_content, 300_000, key);
        await PatchAllAsync(server, path, s_content, 256 * 1024, from: 300_000, protocol: protocol);
        await AssertFileAsync(server, key, s_content);
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task PostWithBody_WithoutContentLength_Returns201WithItsOffset(Protocol protocol)
    {
        // HTTP/1.1 sends the body chunked; HTTP/2 sends DATA frames and no Content-Length (and never Transfer-Encoding).
        var key = NewFileName();
        using var body = new StreamContent(new ForwardOnlyStream(s_content[..500_000]));
        body.Headers.ContentType = new MediaTypeHeaderValue(OffsetStream);

        using var request = Request(server, HttpMethod.Post, "/tus/", protocol);
        request.Content = body;
        if (protocol == Protocol.Http11)
        {
            request.Headers.TransferEncodingChunked = true;
        }

        AddHeaders(request, ("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", key))));
        using var response = await server.Client.SendAsync(request);

        var path = await CreatedAsync(response);
        Assert.Equal(500_000, Offset(response));
        await PatchAllAsync(server, path, s_content, s_content.Length, from: 500_000);
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task PostWithBody_WrongContentType_Returns415AndMakesNoFile()
    {
        var key = NewFileName();

        using var response = await PostAsync(
            server, [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", key)))], Body(s_content, "application/octet-stream"));

        await AssertRefusedAsync(response, HttpStatusCode.UnsupportedMediaType);
        await AssertNoFileAsync(server, key);
        if (server.TusDirectory is not null)
        {
            // No byte of the refused body was kept anywhere.
            Assert.All(server.TusFiles().Where(name => name.EndsWith(".bin", StringComparison.Ordinal)), name => Assert.Empty(server.StoredBytes(name[..^4])!));
        }
    }

    [Fact]
    public async Task PostWithBody_Refused_LeavesNoUploadTheClientCannotReach()
    {
        // A refused creation either creates nothing, or says where the upload it did create is (Location):
        // otherwise the client can neither resume nor terminate it, and it holds its record until it expires.
        var before = server.TusFiles();

        using var response = await PostAsync(
            server, [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", NewFileName())))], Body(s_content, "application/octet-stream"));

        await AssertRefusedAsync(response, HttpStatusCode.UnsupportedMediaType);
        if (response.Headers.Location is { } location)
        {
            Assert.Equal(HttpStatusCode.OK, await HeadStatusAsync(server, location.OriginalString));
        }
        else if (server.TusDirectory is not null)
        {
            Assert.Equal(before, server.TusFiles());
        }
    }

    [Fact]
    public async Task PostWithBody_LongerThanUploadLength_Returns413AndMakesNoFile()
    {
        var key = NewFileName();

        using var response = await PostAsync(server, [("Upload-Length", "1000"), ("Upload-Metadata", Metadata(("filename", key)))], Body(s_content));

        await AssertRefusedAsync(response, HttpStatusCode.RequestEntityTooLarge);
        await AssertNoFileAsync(server, key);
    }

    [Fact]
    public async Task DeferredLength_DeclaredWithTheLastChunk_MakesTheFile()
    {
        var key = NewFileName();
        var path = await CreateDeferredAsync(server, key);

        using (var head = await HeadAsync(server, path))
        {
            Assert.Equal(HttpStatusCode.OK, head.StatusCode);
            Assert.Equal("1", Header(head, "Upload-Defer-Length"));
            Assert.Null(Header(head, "Upload-Length"));
            Assert.Equal(0, Offset(head));
        }

        await PatchAllAsync(server, path, s_content[..400_000], 200_000);
        using (var head = await HeadAsync(server, path))
        {
            Assert.Equal("1", Header(head, "Upload-Defer-Length"));
            Assert.Equal(400_000, Offset(head));
        }

        await AssertHoldsAsync(server, path, s_content, 400_000, key);
        using var last = await PatchAsync(server, path, 400_000, s_content[400_000..], headers: ("Upload-Length", Invariant(s_content.Length)));

        await AssertStatusAsync(last, HttpStatusCode.NoContent);
        Assert.Equal(s_content.Length, Offset(last));
        Assert.Equal("/files/" + key, Header(last, "Content-Location"));
        await AssertFileAsync(server, key, s_content);
        using var done = await HeadAsync(server, path);
        Assert.Equal(Invariant(s_content.Length), Header(done, "Upload-Length"));
        Assert.Null(Header(done, "Upload-Defer-Length"));
    }

    [Fact]
    public async Task DeferredLength_DeclaredByAnEmptyPatch_ThenUploaded()
    {
        var key = NewFileName();
        var path = await CreateDeferredAsync(server, key);
        await PatchAllAsync(server, path, s_content[..100_000], 100_000);

        using (var declare = await PatchAsync(server, path, 100_000, [], headers: ("Upload-Length", Invariant(s_content.Length))))
        {
            await AssertStatusAsync(declare, HttpStatusCode.NoContent);
            Assert.Equal(100_000, Offset(declare));
        }

        using (var head = await HeadAsync(server, path))
        {
            Assert.Equal(Invariant(s_content.Length), Header(head, "Upload-Length"));
            Assert.Null(Header(head, "Upload-Defer-Length"));
        }

        using (var changed = await PatchAsync(server, path, 100_000, s_content[100_000..200_000], headers: ("Upload-Length", "800000")))
        {
            await AssertRefusedAsync(changed, HttpStatusCode.BadRequest);
        }

        await AssertHoldsAsync(server, path, s_content, 100_000, key);
        await PatchAllAsync(server, path, s_content, 300_000, from: 100_000);
        await AssertFileAsync(server, key, s_content);
    }

    [Fact]
    public async Task DeferredLength_DeclaredShorterThanTheOffset_Returns400AndChangesNothing()
    {
        var key = NewFileName();
        var path = await CreateDeferredAsync(server, key);
        await PatchAllAsync(server, path, s_content[..100_000], 100_000);

        using var response = await PatchAsync(server, path, 100_000, [], headers: ("Upload-Length", "99999"));

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        await AssertHoldsAsync(server, path, s_content, 100_000, key);
        using var head = await HeadAsync(server, path);
        Assert.Equal("1", Header(head, "Upload-Defer-Length"));
    }

    [Fact]
    public async Task DeferredLength_ChunkPastTheDeclaredLength_Returns413AndChangesNothing()
    {
        var key = NewFileName();
        var path = await CreateDeferredAsync(server, key);
        await PatchAllAsync(server, path, s_content[..100_000], 100_000);

        using var response = await PatchAsync(server, path, 100_000, Content(700_000, seed: 82), headers: ("Upload-Length", Invariant(s_content.Length)));

        await AssertRefusedAsync(response, HttpStatusCode.RequestEntityTooLarge);
        await AssertHoldsAsync(server, path, s_content, 100_000, key);
        // The same declaration with the right bytes is taken.
        using var retry = await PatchAsync(server, path, 100_000, s_content[100_000..], headers: ("Upload-Length", Invariant(s_content.Length)));
        await AssertStatusAsync(retry, HttpStatusCode.NoContent);
        await AssertFileAsync(server, key, s_content);
    }

    private static Version HttpVersionOf(Protocol protocol) => protocol == Protocol.Http2 ? HttpVersion.Version20 : HttpVersion.Version11;
}

public sealed class TusCreationFileSystemTests(FileSystemTusServer server) : TusCreationTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusCreationMemoryTests(MemoryTusServer server) : TusCreationTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusCreationS3Tests(S3TusServer server) : TusCreationTests(server), IClassFixture<S3TusServer>;

public sealed class TusCreationSampleTests(SampleTusServer server) : TusCreationTests(server), IClassFixture<SampleTusServer>;
