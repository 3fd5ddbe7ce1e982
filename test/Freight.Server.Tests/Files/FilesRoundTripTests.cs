using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// PUT then GET gives back every byte, for every size, framing and protocol, with one ETag throughout:
/// one contract, run against each store.
/// </summary>
public abstract class FilesRoundTripTests(FilesServer server)
{
    private const long Big = 256L * Payloads.MiB;

    public static TheoryData<long, Framing, Protocol> Cases()
    {
        var cases = new TheoryData<long, Framing, Protocol>();
        foreach (var size in new[] { 0, 1, Payloads.MiB, Big })
        {
            foreach (var framing in new[] { Framing.ContentLength, Framing.Chunked })
            {
                foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
                {
                    cases.Add(size, framing, protocol);
                }
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task PutThenGet_AnySizeFramingAndProtocol_ReturnsTheExactBytes(long size, Framing framing, Protocol protocol)
    {
        var key = $"{NewRoot()}/payload-{size}.bin";
        var etag = Quote(GeneratedPayloadStream.Hash(size));
        using var put = server.Request(HttpMethod.Put, protocol, "/files/" + key);
        put.Content = new StreamContent(new GeneratedPayloadStream(size), 1024 * 1024);
        put.Content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        if (framing == Framing.ContentLength)
        {
            put.Content.Headers.ContentLength = size;
        }
        else if (protocol == Protocol.Http11)
        {
            put.Headers.TransferEncodingChunked = true;
        }

        using var created = await server.Client.SendAsync(put);

        await AssertStatusAsync(created, HttpStatusCode.Created);
        Assert.Equal(put.Version, created.Version);
        Assert.Equal("/files/" + key, created.Headers.Location?.OriginalString);
        Assert.Equal(etag, created.Headers.ETag?.ToString());
        using (var body = JsonDocument.Parse(await created.Content.ReadAsStringAsync()))
        {
            Assert.Equal(key, body.RootElement.GetProperty("name").GetString());
            Assert.Equal(size, body.RootElement.GetProperty("size").GetInt64());
            Assert.Equal(etag, body.RootElement.GetProperty(ETagProperty).GetString());
        }

        if (server.FilesDirectory is not null)
        {
            await using var stored = File.OpenRead(server.DiskPath(key));
            Assert.Equal((size, GeneratedPayloadStream.Hash(size)), await Payloads.HashAsync(stored));
        }

        using (var get = server.Request(HttpMethod.Get, protocol, "/files/" + key))
        using (var response = await server.Client.SendAsync(get, HttpCompletionOption.ResponseHeadersRead))
        {
            await AssertStatusAsync(response, HttpStatusCode.OK);
            Assert.Equal(etag, response.Headers.ETag?.ToString());
            Assert.Equal(size, response.Content.Headers.ContentLength);
            await using var content = await response.Content.ReadAsStreamAsync();
            Assert.Equal((size, GeneratedPayloadStream.Hash(size)), await Payloads.HashAsync(content));
        }

        // The 256 MiB cases add up: free the space (and check DELETE on every size while at it).
        using var deleted = await SendAsync(server, HttpMethod.Delete, "/files/" + key);
        await AssertStatusAsync(deleted, HttpStatusCode.NoContent);
    }

    [Fact]
    public async Task Put_ExistingPath_Returns204WithNewETagAndReplacesContent()
    {
        var key = $"{NewRoot()}/replaced.bin";
        var first = Content(4096, seed: 1);
        var second = Content(1000, seed: 2);
        await CreateAsync(server, key, first);

        using var replaced = await PutAsync(server, key, second);

        await AssertStatusAsync(replaced, HttpStatusCode.NoContent);
        Assert.Equal(ETag(second), replaced.Headers.ETag?.ToString());
        Assert.Null(replaced.Headers.Location);
        Assert.Empty(await replaced.Content.ReadAsByteArrayAsync());
        await AssertStoredAsync(server, key, second);
    }

    [Fact]
    public async Task Put_SameContentTwice_KeepsTheSameETag()
    {
        var key = $"{NewRoot()}/same.bin";
        var content = Content(70_000);
        var created = await CreateAsync(server, key, content);

        using var again = await PutAsync(server, key, content);

        await AssertStatusAsync(again, HttpStatusCode.NoContent);
        Assert.Equal(created, again.Headers.ETag?.ToString());
        Assert.Equal(ETag(content), created);
    }

    [Fact]
    public async Task Get_AfterPutWithContentType_ReturnsThatContentType()
    {
        var key = $"{NewRoot()}/table";
        var content = Encoding.UTF8.GetBytes("a,b\n1,2\n");
        using var put = server.Request(HttpMethod.Put, Protocol.Http11, "/files/" + key);
        put.Content = new ByteArrayContent(content);
        put.Content.Headers.ContentType = new MediaTypeHeaderValue("text/csv");
        using var created = await server.Client.SendAsync(put);
        await AssertStatusAsync(created, HttpStatusCode.Created);
        using (var body = JsonDocument.Parse(await created.Content.ReadAsStringAsync()))
        {
            Assert.Equal("text/csv", body.RootElement.GetProperty("contentType").GetString());
        }

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key);

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal("text/csv", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Head_StoredFile_ReturnsLengthAndETagWithoutBody()
    {
        var key = $"{NewRoot()}/head.bin";
        var content = Content(12_345);
        await CreateAsync(server, key, content);

        using var response = await SendAsync(server, HttpMethod.Head, "/files/" + key);

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(ETag(content), response.Headers.ETag?.ToString());
        Assert.Equal(content.Length, response.Content.Headers.ContentLength);
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Put_WithContentEncoding_Returns415AndStoresNothing()
    {
        var key = $"{NewRoot()}/coded.bin";
        using var request = Put(server, key, Content(100));
        request.Content!.Headers.ContentEncoding.Add("gzip");

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.UnsupportedMediaType);
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Get_AFolder_404ProblemSaysHowToListIt()
    {
        var folder = $"{NewRoot()}/photos";
        await CreateAsync(server, folder + "/a.bin", Content(100, seed: 41));

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + folder);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        var detail = (await response.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("detail").GetString()!;
        var start = detail.IndexOf("GET ", StringComparison.Ordinal) + 4;
        var listing = detail[start..detail.IndexOf(" lists it", start, StringComparison.Ordinal)];
        Assert.Equal($"/files?prefix={folder}", listing);
        using var listed = await SendAsync(server, HttpMethod.Get, listing);
        await AssertStatusAsync(listed, HttpStatusCode.OK);
        var items = (await listed.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("items");
        Assert.Equal(folder + "/a.bin", Assert.Single(items.EnumerateArray()).GetProperty("name").GetString());
    }

    [Fact]
    public async Task Get_MissingFile_Returns404Problem()
    {
        using var response = await SendAsync(server, HttpMethod.Get, $"/files/{NewRoot()}/missing.bin");

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
    }
}

public sealed class FilesRoundTripFileSystemTests(FileSystemFilesServer server) : FilesRoundTripTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class FilesRoundTripCopyingTests(CopyingFilesServer server) : FilesRoundTripTests(server), IClassFixture<CopyingFilesServer>;

public sealed class FilesRoundTripMemoryTests(MemoryFilesServer server) : FilesRoundTripTests(server), IClassFixture<MemoryFilesServer>;

public sealed class FilesRoundTripS3Tests(S3FilesServer server) : FilesRoundTripTests(server), IClassFixture<S3FilesServer>;

public sealed class FilesRoundTripSampleTests(SampleFilesServer server) : FilesRoundTripTests(server), IClassFixture<SampleFilesServer>;
