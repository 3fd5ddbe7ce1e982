using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// <c>POST /files/{prefix}</c> with multipart/form-data (RFC 7578): each file part becomes a file under the
/// prefix, named by its filename; form fields are echoed; a filename that is not a valid name is a 400.
/// </summary>
public abstract class FilesMultipartTests(FilesServer server)
{
    private const string Boundary = "files-test-boundary-Zq81";

    [Fact]
    public async Task Post_TwoFilesAndAField_Returns201WithBothFilesAndTheField()
    {
        var root = NewRoot();
        var one = Content(300_000, seed: 51);
        var two = Encoding.UTF8.GetBytes("second file\n");
        using var form = new MultipartFormDataContent();
        form.Add(new StringContent("hello"), "note");
        var first = new ByteArrayContent(one);
        first.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        form.Add(first, "f1", "one.bin");
        var second = new ByteArrayContent(two);
        second.Headers.ContentType = new MediaTypeHeaderValue("text/plain");
        form.Add(second, "f2", "two.txt");
        using var request = server.Request(HttpMethod.Post, Protocol.Http11, $"/files/{root}/up");
        request.Content = form;

        using var response = await server.Client.SendAsync(request);

        await AssertStatusAsync(response, HttpStatusCode.Created);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var files = body.RootElement.GetProperty("files").EnumerateArray().ToList();
        Assert.Equal(2, files.Count);
        AssertFile(files[0], $"{root}/up/one.bin", one);
        AssertFile(files[1], $"{root}/up/two.txt", two);
        Assert.Equal("text/plain", files[1].GetProperty("contentType").GetString());
        Assert.Equal("hello", body.RootElement.GetProperty("fields").GetProperty("note").GetString());
        Assert.Empty(server.FilesTempFiles());
        await AssertStoredAsync(server, $"{root}/up/one.bin", one);
        await AssertStoredAsync(server, $"{root}/up/two.txt", two);
    }

    [Fact]
    public async Task Post_FileNameWithDirectories_StoresUnderThePrefixOnly()
    {
        var root = NewRoot();
        var content = Content(1000, seed: 52);
        var before = server.DataDirectorySnapshot();

        using var response = await PostRawAsync($"/files/{root}/up", Part("f", "../../escape.bin", content));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        AssertFile(Assert.Single(body.RootElement.GetProperty("files").EnumerateArray()), $"{root}/up/escape.bin", content);
        if (server.FilesDirectory is not null)
        {
            // The only new entries are the file, its sidecar and their folders, all inside the store.
            var added = server.DataDirectorySnapshot().Except(before).ToList();
            Assert.All(added, entry => Assert.StartsWith($"files/{root}", entry, StringComparison.Ordinal));
            Assert.Contains($"files/{root}/up/escape.bin", added);
        }
    }

    public static TheoryData<string> BadFileNames() =>
    [
        "a\u0001b.bin",
        "..",
        ".x.freight-meta",
        "c.freight-tmp",
        new string('n', 241),
    ];

    [Theory]
    [MemberData(nameof(BadFileNames))]
    public async Task Post_PartWithBadFileName_Returns400AndStoresNothing(string fileName)
    {
        var root = NewRoot();

        using var response = await PostRawAsync($"/files/{root}/up", Part("f", fileName, Content(100)));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        using var listing = await ListAsync(server, "prefix=" + root);
        Assert.Empty(listing.RootElement.GetProperty("items").EnumerateArray());
        Assert.Empty(server.FilesTempFiles());
    }

    /// <summary>
    /// Each file part is its own atomic write, so a later part's failure leaves the earlier ones stored: the problem
    /// says which (<c>stored</c>, as a 201's <c>files</c>), and the client can send the rest again.
    /// </summary>
    [Fact]
    public async Task Post_SecondPartRefused_ProblemListsTheFileStoredBeforeIt()
    {
        var root = NewRoot();
        var first = Content(70_000, seed: 53);

        using var response = await PostRawAsync($"/files/{root}/up", [.. Part("f1", "first.bin", first), .. Part("f2", "..", Content(10))]);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        AssertFile(Assert.Single(body.RootElement.GetProperty("stored").EnumerateArray()), $"{root}/up/first.bin", first);
        await AssertStoredAsync(server, $"{root}/up/first.bin", first);
        using var listing = await ListAsync(server, "prefix=" + root + "/up");
        Assert.Single(listing.RootElement.GetProperty("items").EnumerateArray());
        Assert.Empty(server.FilesTempFiles());
    }

    [Fact]
    public async Task Post_FirstPartRefused_ProblemListsNothingStored()
    {
        var root = NewRoot();

        using var response = await PostRawAsync($"/files/{root}/up", Part("f", "..", Content(10)));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Empty(body.RootElement.GetProperty("stored").EnumerateArray());
    }

    [Fact]
    public async Task Post_OnlyFields_Returns400()
    {
        var field = Encoding.ASCII.GetBytes($"--{Boundary}\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n");

        using var response = await PostRawAsync($"/files/{NewRoot()}/up", field);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
    }

    [Fact]
    public async Task Post_NotMultipart_Returns415()
    {
        using var request = server.Request(HttpMethod.Post, Protocol.Http11, $"/files/{NewRoot()}/up");
        request.Content = new ByteArrayContent(Content(10));
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.UnsupportedMediaType);
    }

    private static void AssertFile(JsonElement file, string name, byte[] content)
    {
        Assert.Equal(name, file.GetProperty("name").GetString());
        Assert.Equal(content.Length, file.GetProperty("size").GetInt64());
        Assert.Equal(ETag(content), file.GetProperty(ETagProperty).GetString());
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(content)), file.GetProperty("sha256").GetString());
    }

    /// <summary>One file part, byte for byte (HttpClient would encode an odd filename as filename*).</summary>
    private static byte[] Part(string name, string fileName, byte[] content) =>
    [
        .. Encoding.UTF8.GetBytes($"--{Boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{fileName}\"\r\nContent-Type: application/octet-stream\r\n\r\n"),
        .. content,
        .. "\r\n"u8,
    ];

    private async Task<HttpResponseMessage> PostRawAsync(string path, byte[] parts)
    {
        using var request = server.Request(HttpMethod.Post, Protocol.Http11, path);
        request.Content = new ByteArrayContent([.. parts, .. Encoding.ASCII.GetBytes($"--{Boundary}--\r\n")]);
        Assert.True(request.Content.Headers.TryAddWithoutValidation("Content-Type", "multipart/form-data; boundary=" + Boundary));
        return await server.Client.SendAsync(request);
    }
}

public sealed class FilesMultipartFileSystemTests(FileSystemFilesServer server) : FilesMultipartTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class FilesMultipartMemoryTests(MemoryFilesServer server) : FilesMultipartTests(server), IClassFixture<MemoryFilesServer>;

public sealed class FilesMultipartS3Tests(S3FilesServer server) : FilesMultipartTests(server), IClassFixture<S3FilesServer>;

public sealed class FilesMultipartSampleTests(SampleFilesServer server) : FilesMultipartTests(server), IClassFixture<SampleFilesServer>;
