using System.Net;
using System.Text;
using System.Text.Json;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// <c>POST /files/{prefix}</c> bodies built to break a multipart parser (RFC 2046 §5.1.1, RFC 7578): boundaries
/// missing, too long or oddly quoted are 415; oversized part headers, a missing close delimiter and too many
/// parts are 400 problem+json; file names that try to climb out land under the prefix or are refused — on each
/// store, over HTTP/1.1 and HTTP/2, and nothing ever appears outside the prefix.
/// </summary>
public abstract class HostileMultipartTests(FilesServer server)
{
    private const string Boundary = "hostile-Zq81";

    public static TheoryData<string, Protocol> BadBoundaries()
    {
        var cases = new TheoryData<string, Protocol>();
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            foreach (var contentType in new[]
            {
                "multipart/form-data",
                "multipart/form-data; boundary=",
                "multipart/form-data; boundary=\"\"",
                // RFC 2046 §5.1.1: at most 70 characters.
                "multipart/form-data; boundary=" + new string('b', 71),
                "multipart/form-data; boundary=\"" + Boundary,
                "multipart/form-data; boundary=" + Boundary + "; boundary=other",
            })
            {
                cases.Add(contentType, protocol);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(BadBoundaries))]
    public async Task Post_BoundaryMissingTooLongOrAmbiguous_Returns415AndStoresNothing(string contentType, Protocol protocol)
    {
        var root = NewRoot();

        using var response = await PostAsync($"/files/{root}/up", contentType, [.. Part("f", "a.bin", "hello"u8.ToArray()), .. Close()], protocol);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.UnsupportedMediaType);
        await AssertNothingUnderAsync(root);
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Post_QuotedBoundaryWithSpaceAndLongest70_AreAccepted(Protocol protocol)
    {
        var root = NewRoot();
        foreach (var boundary in new[] { "with space", new string('b', 70) })
        {
            var content = Encoding.UTF8.GetBytes(boundary);
            using var response = await PostAsync($"/files/{root}/up", $"multipart/form-data; boundary=\"{boundary}\"", [.. Part("f", boundary.Length + ".bin", content, boundary), .. Close(boundary)], protocol);

            await AssertStatusAsync(response, HttpStatusCode.Created);
            await AssertStoredAsync(server, $"{root}/up/{boundary.Length}.bin", content);
        }
    }

    public static TheoryData<string, Protocol> MalformedBodies()
    {
        var cases = new TheoryData<string, Protocol>();
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            foreach (var kind in new[] { "huge-part-headers", "200-part-headers", "no-close-delimiter", "no-delimiter-at-all", "nested-multipart-only", "129-tiny-parts-one-file", "filename-star-utf-7" })
            {
                cases.Add(kind, protocol);
            }
        }

        return cases;
    }

    /// <summary>Each of these is refused before the first file part is committed: nothing is stored.</summary>
    [Theory]
    [MemberData(nameof(MalformedBodies))]
    public async Task Post_MalformedBody_Returns400ProblemAndStoresNothing(string kind, Protocol protocol)
    {
        var root = NewRoot();
        var file = Content(4096, seed: 91);
        byte[] body = kind switch
        {
            "huge-part-headers" => [.. Encoding.ASCII.GetBytes($"--{Boundary}\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\nX-Pad: {new string('p', 20_000)}\r\n\r\n"), .. file, .. "\r\n"u8, .. Close()],
            "200-part-headers" => [.. Encoding.ASCII.GetBytes($"--{Boundary}\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\n{string.Concat(Enumerable.Range(0, 200).Select(i => $"X-{i}: 1\r\n"))}\r\n"), .. file, .. "\r\n"u8, .. Close()],
            "no-close-delimiter" => [.. Part("f", "a.bin", file)],
            "no-delimiter-at-all" => Encoding.ASCII.GetBytes(Convert.ToBase64String(file)),
            "nested-multipart-only" => Encoding.ASCII.GetBytes(
                $"--{Boundary}\r\nContent-Disposition: form-data; name=\"f\"\r\nContent-Type: multipart/mixed; boundary=inner\r\n\r\n" +
                "--inner\r\nContent-Disposition: file; filename=\"inner.bin\"\r\n\r\nhello\r\n--inner--\r\n\r\n" + $"--{Boundary}--\r\n"),
            // Form fields first: the section limit is met before any file part is written.
            "129-tiny-parts-one-file" => [.. Enumerable.Range(0, 129).SelectMany(i => Field("n" + i, "v")), .. Part("f", "a.bin", file), .. Close()],
            // .NET refuses UTF-7, and the exception escaped as a 500 (found by the multipart fuzzer).
            "filename-star-utf-7" => [.. Encoding.ASCII.GetBytes($"--{Boundary}\r\nContent-Disposition: form-data; name=\"f\"; filename*=UTF-7''a+AGE-.bin\r\n\r\n"), .. file, .. "\r\n"u8, .. Close()],
            _ => throw new ArgumentOutOfRangeException(nameof(kind)),
        };

        using var response = await PostAsync($"/files/{root}/up", "multipart/form-data; boundary=" + Boundary, body, protocol);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        await AssertNothingUnderAsync(root);
        await server.AssertServingAsync();
    }

    /// <summary>128 sections is the limit (MultipartLimits.MaxSections): 128 tiny file parts are all stored, each exact.</summary>
    [Fact]
    public async Task Post_128TinyParts_StoresEveryOne()
    {
        var root = NewRoot();
        var body = Enumerable.Range(0, 128).SelectMany(i => Part("f", $"p{i:D3}.bin", [(byte)i])).Concat(Close()).ToArray();

        using var response = await PostAsync($"/files/{root}/up", "multipart/form-data; boundary=" + Boundary, body, Protocol.Http11);

        await AssertStatusAsync(response, HttpStatusCode.Created);
        using var listing = await ListAsync(server, $"prefix={root}&limit=1000");
        var items = listing.RootElement.GetProperty("items").EnumerateArray().ToList();
        Assert.Equal(128, items.Count);
        Assert.All(items, item => Assert.Equal(1, item.GetProperty("size").GetInt64()));
        await AssertStoredAsync(server, $"{root}/up/p127.bin", [127]);
    }

    /// <summary>File names that climb, name a drive or share, or are percent-encoded: only the last segment counts, and it lands under the prefix (or is refused).</summary>
    [Theory]
    [InlineData("../../escape.bin", "escape.bin")]
    [InlineData("/etc/passwd", "passwd")]
    [InlineData("a/../../../b.bin", "b.bin")]
    [InlineData("%2e%2e/x.bin", "x.bin")]
    [InlineData("%2e%2e", "%2e%2e")]
    [InlineData("C:x.bin", "C:x.bin")]
    [InlineData("C:\\x.bin", null)]
    [InlineData("\\\\server\\share\\x.bin", null)]
    [InlineData("..\\..\\x.bin", null)]
    [InlineData("..", null)]
    [InlineData(".freight-x", null)]
    public async Task Post_TraversalFileName_LandsUnderThePrefixOrIsRefused(string fileName, string? storedName)
    {
        var root = NewRoot();
        var content = Encoding.UTF8.GetBytes(fileName);
        var before = server.DataDirectorySnapshot();

        using var response = await PostAsync($"/files/{root}/up", "multipart/form-data; boundary=" + Boundary, [.. Part("f", fileName, content), .. Close()], Protocol.Http11);

        if (storedName is null)
        {
            await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
            await AssertNothingUnderAsync(root);
            Assert.Equal(before, server.DataDirectorySnapshot());
            return;
        }

        await AssertStatusAsync(response, HttpStatusCode.Created);
        using (var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync()))
        {
            Assert.Equal($"{root}/up/{storedName}", Assert.Single(body.RootElement.GetProperty("files").EnumerateArray()).GetProperty("name").GetString());
        }

        using (var listing = await ListAsync(server, "prefix=" + root))
        {
            Assert.Equal($"{root}/up/{storedName}", Assert.Single(listing.RootElement.GetProperty("items").EnumerateArray()).GetProperty("name").GetString());
        }

        if (server.FilesDirectory is not null)
        {
            // Everything new is the file, its sidecar and their folders, inside the store under the prefix.
            Assert.All(server.DataDirectorySnapshot().Except(before), entry => Assert.StartsWith($"files/{root}", entry, StringComparison.Ordinal));
            Assert.Equal(content, await File.ReadAllBytesAsync(server.DiskPath($"{root}/up/{storedName}")));
        }
    }

    private static byte[] Part(string name, string fileName, byte[] content, string boundary = Boundary) =>
    [
        .. Encoding.UTF8.GetBytes($"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{fileName}\"\r\nContent-Type: application/octet-stream\r\n\r\n"),
        .. content,
        .. "\r\n"u8,
    ];

    private static byte[] Field(string name, string value) =>
        Encoding.UTF8.GetBytes($"--{Boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n");

    private static byte[] Close(string boundary = Boundary) => Encoding.ASCII.GetBytes($"--{boundary}--\r\n");

    private async Task<HttpResponseMessage> PostAsync(string path, string contentType, byte[] body, Protocol protocol)
    {
        using var request = server.Request(HttpMethod.Post, protocol, path);
        request.Content = new ByteArrayContent(body);
        Assert.True(request.Content.Headers.TryAddWithoutValidation("Content-Type", contentType));
        return await server.Client.SendAsync(request);
    }

    private async Task AssertNothingUnderAsync(string root)
    {
        using var listing = await ListAsync(server, "prefix=" + root);
        Assert.Empty(listing.RootElement.GetProperty("items").EnumerateArray());
        Assert.Empty(server.TempFiles());
    }
}

public sealed class HostileMultipartFileSystemTests(FileSystemFilesServer server) : HostileMultipartTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class HostileMultipartMemoryTests(MemoryFilesServer server) : HostileMultipartTests(server), IClassFixture<MemoryFilesServer>;

public sealed class HostileMultipartS3Tests(S3FilesServer server) : HostileMultipartTests(server), IClassFixture<S3FilesServer>;
