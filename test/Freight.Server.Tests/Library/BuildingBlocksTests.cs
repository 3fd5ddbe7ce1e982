using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Freight.AspNetCore.Uploads;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Library;

/// <summary>
/// The library's building blocks in a user's own routes (<see cref="BuildingBlocksServer"/>), through HTTP: the typed
/// results answer as the files API's GET does, the streaming multipart parameter stores and streams each part, and the
/// store call is a PUT's upload path — digests verified, nothing kept on a refusal.
/// </summary>
public sealed class BuildingBlocksTests(BuildingBlocksServer server) : IClassFixture<BuildingBlocksServer>
{
    [Theory]
    [InlineData(Protocol.Http11, 1000)]
    [InlineData(Protocol.Http2, 1000)]
    [InlineData(Protocol.Http11, 3 * 1024 * 1024)]
    [InlineData(Protocol.Http2, 3 * 1024 * 1024)]
    public async Task FileResult_WholeFile_SendsItsBytesWithValidators(Protocol protocol, int size)
    {
        var content = Content(size, seed: 301);
        var name = WriteFile(content, ".bin");

        using var response = await SendAsync(protocol, HttpMethod.Get, "/my/file/" + name);

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
        Assert.Equal("application/octet-stream", response.Content.Headers.ContentType?.MediaType);
        Assert.NotNull(response.Headers.ETag);
        Assert.NotNull(response.Content.Headers.LastModified);
        Assert.Equal("bytes", Assert.Single(response.Headers.AcceptRanges));
    }

    [Fact]
    public async Task FileResult_RangeAndMultiRange_AnswerWith206()
    {
        var content = Content(100_000, seed: 302);
        var name = WriteFile(content, ".bin");

        using var one = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + name, ("Range", "bytes=10-19"));
        await AssertStatusAsync(one, HttpStatusCode.PartialContent);
        Assert.Equal(content[10..20], await one.Content.ReadAsByteArrayAsync());
        Assert.Equal("bytes 10-19/100000", one.Content.Headers.ContentRange?.ToString());

        using var two = await SendAsync(Protocol.Http2, HttpMethod.Get, "/my/file/" + name, ("Range", "bytes=0-4,99990-"));
        await AssertStatusAsync(two, HttpStatusCode.PartialContent);
        Assert.Equal("multipart/byteranges", two.Content.Headers.ContentType?.MediaType);
        var body = await two.Content.ReadAsByteArrayAsync();
        Assert.True(Contains(body, content[..5]) && Contains(body, content[99990..]), "a part's bytes are missing from the multipart/byteranges body");

        using var unsatisfiable = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + name, ("Range", "bytes=200000-"));
        Assert.Equal(HttpStatusCode.RequestedRangeNotSatisfiable, unsatisfiable.StatusCode);
        Assert.Equal("bytes */100000", unsatisfiable.Content.Headers.ContentRange?.ToString());
    }

    [Fact]
    public async Task FileResult_IfNoneMatchTheETag_Answers304()
    {
        var name = WriteFile(Content(5000, seed: 303), ".bin");
        using var first = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + name);
        var etag = first.Headers.ETag!.ToString();

        using var second = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + name, ("If-None-Match", etag));

        Assert.Equal(HttpStatusCode.NotModified, second.StatusCode);
        Assert.Empty(await second.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [InlineData(2000)]
    [InlineData(2 * 1024 * 1024)]
    public async Task FileResult_WantReprDigest_SendsTheFilesSha256(int size)
    {
        var content = Content(size, seed: 304);
        var name = WriteFile(content, ".bin");

        using var response = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + name, ("Want-Repr-Digest", "sha-256=5"));

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(Sha256Field(content), string.Join(",", response.Headers.GetValues("Repr-Digest")));
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task FileResult_ContentTypeAndDownloadName_AreSent()
    {
        var content = Encoding.UTF8.GetBytes("a,b\n1,2\n");
        await File.WriteAllBytesAsync(Path.Combine(server.PublicDirectory, "report.bin"), content);

        using var response = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/report");

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal("text/csv", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal("attachment", response.Content.Headers.ContentDisposition?.DispositionType);
        Assert.Equal("report 2026.csv", response.Content.Headers.ContentDisposition?.FileNameStar ?? response.Content.Headers.ContentDisposition?.FileName?.Trim('"'));
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task FileAndObjectResults_CacheControl_OnEveryAnswerWhenAskedNoneByDefault()
    {
        var content = Content(5000, seed: 319);
        var name = WriteFile(content, ".bin");
        var key = $"{NewRoot()}/revalidated.bin";
        await CreateAsync(server, key, content);

        foreach (var (path, cacheControl) in new[] { ("/my/revalidated/file/" + name, "no-cache"), ("/my/revalidated/object/" + key, "private, no-cache") })
        {
            using var whole = await SendAsync(Protocol.Http11, HttpMethod.Get, path);
            using var range = await SendAsync(Protocol.Http11, HttpMethod.Get, path, ("Range", "bytes=0-9"));
            using var notModified = await SendAsync(Protocol.Http11, HttpMethod.Get, path, ("If-None-Match", whole.Headers.ETag!.ToString()));
            foreach (var (response, status) in new[] { (whole, HttpStatusCode.OK), (range, HttpStatusCode.PartialContent), (notModified, HttpStatusCode.NotModified) })
            {
                Assert.Equal(status, response.StatusCode);
                Assert.Equal(CacheControlHeaderValue.Parse(cacheControl), response.Headers.CacheControl);
            }
        }

        // The app's choice: without the parameter the results add none (an app may set its own on the response).
        using var plainFile = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + name);
        using var plainObject = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/object/" + key);
        Assert.Null(plainFile.Headers.CacheControl);
        Assert.Null(plainObject.Headers.CacheControl);
    }

    [Fact]
    public async Task FileResult_NoSuchFile_Is404ProblemLoggedOnce()
    {
        var name = "absent-" + Guid.NewGuid().ToString("N");
        var mark = server.Logs.Count;

        using var response = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + name);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        AssertLoggedOnce(server.Logs.Since(mark), $"GET /my/file/{name} rejected with 404");
    }

    /// <summary>A result's own refusal is logged as the files API's are: once, in the problem middleware's category, at Information.</summary>
    private static void AssertLoggedOnce(IReadOnlyList<CapturedLog> logged, string line)
    {
        var entry = Assert.Single(logged, entry => entry.Message.Contains(line, StringComparison.Ordinal));
        Assert.Equal(typeof(Freight.AspNetCore.Errors.ProblemMiddleware).FullName, entry.Category);
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Information, entry.Level);
    }

    [Fact]
    public async Task FileResult_AFolderOrAPipe_Is404ProblemAndTheServerKeepsServing()
    {
        var folder = "folder-" + Guid.NewGuid().ToString("N");
        Directory.CreateDirectory(Path.Combine(server.PublicDirectory, folder));
        var pipe = "pipe-" + Guid.NewGuid().ToString("N");
        using (var mkfifo = System.Diagnostics.Process.Start("mkfifo", Path.Combine(server.PublicDirectory, pipe)))
        {
            await mkfifo.WaitForExitAsync();
            Assert.Equal(0, mkfifo.ExitCode);
        }

        using var forFolder = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + folder);
        await ProblemAssert.IsProblemAsync(forFolder, HttpStatusCode.NotFound);

        // A FIFO opened for reading waits for a writer that never comes: the open must not block the request.
        using var request = server.Request(HttpMethod.Get, Protocol.Http11, "/my/file/" + pipe);
        using var patience = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        using var forPipe = await server.Client.SendAsync(request, patience.Token);
        await ProblemAssert.IsProblemAsync(forPipe, HttpStatusCode.NotFound);

        var content = Content(200_000, seed: 318);
        using var after = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/file/" + WriteFile(content, ".bin"));
        await AssertStatusAsync(after, HttpStatusCode.OK);
        Assert.Equal(content, await after.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task ObjectResult_StoredObject_AnswersAsTheFilesApiDoes(Protocol protocol)
    {
        var key = $"{NewRoot()}/object.bin";
        var content = Content(700_000, seed: 305);
        var etag = await CreateAsync(server, key, content);

        using var whole = await SendAsync(protocol, HttpMethod.Get, "/my/object/" + key);
        await AssertStatusAsync(whole, HttpStatusCode.OK);
        Assert.Equal(etag, whole.Headers.ETag?.ToString());
        Assert.Equal(content, await whole.Content.ReadAsByteArrayAsync());

        using var range = await SendAsync(protocol, HttpMethod.Get, "/my/object/" + key, ("Range", "bytes=-100"));
        await AssertStatusAsync(range, HttpStatusCode.PartialContent);
        Assert.Equal(content[^100..], await range.Content.ReadAsByteArrayAsync());

        using var digest = await SendAsync(protocol, HttpMethod.Head, "/my/object/" + key, ("Want-Repr-Digest", "sha-256=1"));
        await AssertStatusAsync(digest, HttpStatusCode.OK);
        Assert.Equal(Sha256Field(content), string.Join(",", digest.Headers.GetValues("Repr-Digest")));
    }

    [Fact]
    public async Task ObjectResult_NoSuchObject_Is404ProblemLoggedOnce()
    {
        var key = $"{NewRoot()}/absent.bin";
        var mark = server.Logs.Count;

        using var response = await SendAsync(Protocol.Http11, HttpMethod.Get, "/my/object/" + key);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        AssertLoggedOnce(server.Logs.Since(mark), $"GET /my/object/{key} rejected with 404");
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Multipart_FilePartsFieldsAndStreamedParts_AreEachHandledAsTheyArrive(Protocol protocol)
    {
        var root = NewRoot();
        var first = Content(1_500_000, seed: 306);
        var second = Content(10, seed: 307);
        var streamedBytes = Content(300_000, seed: 308);
        using var form = new MultipartFormDataContent("blocks-boundary")
        {
            { new StringContent("holiday"), "album" },
            { new ByteArrayContent(first), "photo", $"{root}-a.jpg" },
            { new ByteArrayContent(Content(5000, seed: 309)), "skipped", "ignored.bin" },
            { new ByteArrayContent(streamedBytes), "hash-only", "streamed.bin" },
            { new ByteArrayContent(second), "photo", $"{root}-b.jpg" },
        };
        using var request = server.Request(HttpMethod.Post, protocol, "/my/photos");
        request.Content = form;

        using var response = await server.Client.SendAsync(request);

        await AssertStatusAsync(response, HttpStatusCode.OK);
        using var answer = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal([$"photos/{root}-a.jpg", $"photos/{root}-b.jpg"], answer.RootElement.GetProperty("stored").EnumerateArray().Select(e => e.GetString()));
        Assert.Equal("holiday", answer.RootElement.GetProperty("fields").GetProperty("album").GetString());
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(streamedBytes)), answer.RootElement.GetProperty("streamed").GetProperty("streamed.bin").GetString());
        await AssertStoredAsync(server, $"photos/{root}-a.jpg", first);
        await AssertStoredAsync(server, $"photos/{root}-b.jpg", second);
        await AssertAbsentAsync(server, "photos/ignored.bin");
    }

    [Fact]
    public async Task Multipart_NotMultipart_Is415Problem()
    {
        using var request = server.Request(HttpMethod.Post, Protocol.Http11, "/my/photos");
        request.Content = new ByteArrayContent(Content(100, seed: 310));
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.UnsupportedMediaType);
    }

    [Fact]
    public async Task Multipart_BodyEndsMidPart_Is400AndStoresNothingOfThatPart()
    {
        var root = NewRoot();
        var body = Encoding.ASCII.GetBytes(
            "--cut\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"" + root + "-cut.jpg\"\r\n\r\n" + new string('x', 5000));
        using var request = server.Request(HttpMethod.Post, Protocol.Http11, "/my/photos");
        request.Content = new ByteArrayContent(body);
        request.Content.Headers.ContentType = MediaTypeHeaderValue.Parse("multipart/form-data; boundary=cut");

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        await AssertAbsentAsync(server, $"photos/{root}-cut.jpg");
        Assert.Empty(server.FilesTempFiles());
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task StoreCall_BodyWithItsDigest_IsStoredThenReplaced(Protocol protocol)
    {
        var key = $"{NewRoot()}/upload.bin";
        var content = Content(2_000_000, seed: 311);

        using (var created = await SendAsync(protocol, HttpMethod.Put, "/my/upload/" + key, content, ("Content-Digest", Sha256Field(content))))
        {
            await AssertStatusAsync(created, HttpStatusCode.OK);
            var answer = await created.Content.ReadFromJsonAsync<JsonElement>();
            Assert.True(answer.GetProperty("created").GetBoolean());
            Assert.Equal(ETag(content), answer.GetProperty("eTag").GetString());
        }

        await AssertStoredAsync(server, "uploads/" + key, content);
        var replacement = Content(10, seed: 312);
        using (var replaced = await SendAsync(protocol, HttpMethod.Put, "/my/upload/" + key, replacement))
        {
            await AssertStatusAsync(replaced, HttpStatusCode.OK);
            Assert.False((await replaced.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("created").GetBoolean());
        }

        await AssertStoredAsync(server, "uploads/" + key, replacement);
    }

    [Fact]
    public async Task StoreCall_AnsweredAsStoredFile_HasTheFilesApisJson()
    {
        var content = Content(100_000, seed: 318);
        var digest = ("Content-Digest", Sha256Field(content));

        using var fromFilesApi = await SendAsync(Protocol.Http11, HttpMethod.Put, $"/files/{NewRoot()}/a.bin", content, digest);
        using var fromOwnRoute = await SendAsync(Protocol.Http11, HttpMethod.Put, $"/my/upload-answered-as-files/{NewRoot()}/a.bin", content, digest);

        await AssertStatusAsync(fromFilesApi, HttpStatusCode.Created);
        await AssertStatusAsync(fromOwnRoute, HttpStatusCode.OK);
        var expected = await fromFilesApi.Content.ReadFromJsonAsync<JsonElement>();
        var actual = await fromOwnRoute.Content.ReadFromJsonAsync<JsonElement>();
        Assert.Equal(expected.EnumerateObject().Select(p => p.Name), actual.EnumerateObject().Select(p => p.Name));
        Assert.Equal(ETag(content), actual.GetProperty("etag").GetString());
        Assert.Equal(content.Length, actual.GetProperty("size").GetInt64());
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(content)), actual.GetProperty("sha256").GetString());
        Assert.Equal(expected.GetProperty("sha256").GetString(), actual.GetProperty("sha256").GetString());
    }

    [Fact]
    public async Task StoreCall_WrongDigest_Is400AndStoresNothing()
    {
        var key = $"{NewRoot()}/upload.bin";
        var content = Content(100_000, seed: 313);

        using var response = await SendAsync(Protocol.Http11, HttpMethod.Put, "/my/upload/" + key, content, ("Content-Digest", Sha256Field(Content(100_000, seed: 314))));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        await AssertAbsentAsync(server, "uploads/" + key);
        Assert.Empty(server.FilesTempFiles());
    }

    [Fact]
    public async Task StoreCall_IfNoneMatchStarOnAnExistingFile_Is412ProblemAndKeepsTheFile()
    {
        var key = $"{NewRoot()}/upload.bin";
        var original = Content(1000, seed: 316);
        using (var first = await SendAsync(Protocol.Http11, HttpMethod.Put, "/my/upload/" + key, original))
        {
            await AssertStatusAsync(first, HttpStatusCode.OK);
        }

        // The files API answers this refusal without a throw; a user's route still gets it as the thrown problem.
        using var response = await SendAsync(Protocol.Http11, HttpMethod.Put, "/my/upload/" + key, Content(1000, seed: 317), ("If-None-Match", "*"));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.PreconditionFailed);
        await AssertStoredAsync(server, "uploads/" + key, original);
    }

    [Fact]
    public async Task StoreCall_KeyOutsideTheRules_Is400()
    {
        using var response = await SendAsync(Protocol.Http11, HttpMethod.Put, $"/my/upload/{NewRoot()}//passwd", Content(10, seed: 315));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
    }

    [Fact]
    public void Metadata_TypedResultsAndMultipart_DescribeThemselvesToOpenApi()
    {
        var endpoints = server.Server.App.Services.GetRequiredService<EndpointDataSource>().Endpoints.OfType<RouteEndpoint>().ToList();
        foreach (var pattern in new[] { "/my/file/{name}", "/my/object/{*key}" })
        {
            var endpoint = endpoints.Single(e => e.RoutePattern.RawText == pattern);
            var statuses = endpoint.Metadata.GetOrderedMetadata<IProducesResponseTypeMetadata>().Select(m => m.StatusCode).Order().ToArray();
            Assert.Equal([200, 206, 304, 404, 412, 416], statuses);
        }

        var photos = endpoints.Single(e => e.RoutePattern.RawText == "/my/photos");
        var accepts = photos.Metadata.GetMetadata<IAcceptsMetadata>();
        Assert.NotNull(accepts);
        Assert.Equal(["multipart/form-data"], accepts.ContentTypes);
        Assert.Equal(typeof(FreightMultipart), accepts.RequestType);
    }

    private string WriteFile(byte[] content, string extension)
    {
        var name = Guid.NewGuid().ToString("N") + extension;
        File.WriteAllBytes(Path.Combine(server.PublicDirectory, name), content);
        return name;
    }

    private async Task<HttpResponseMessage> SendAsync(Protocol protocol, HttpMethod method, string path, params (string Name, string Value)[] headers) =>
        await SendAsync(protocol, method, path, null, headers);

    private async Task<HttpResponseMessage> SendAsync(Protocol protocol, HttpMethod method, string path, byte[]? body, params (string Name, string Value)[] headers)
    {
        using var request = server.Request(method, protocol, path);
        if (body is not null)
        {
            request.Content = new ByteArrayContent(body);
        }

        foreach (var (name, value) in headers)
        {
            if (!request.Headers.TryAddWithoutValidation(name, value))
            {
                request.Content!.Headers.TryAddWithoutValidation(name, value);
            }
        }

        return await server.Client.SendAsync(request);
    }

    private static bool Contains(byte[] haystack, byte[] needle) => haystack.AsSpan().IndexOf(needle) >= 0;
}
