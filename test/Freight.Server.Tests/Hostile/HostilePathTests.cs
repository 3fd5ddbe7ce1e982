using System.Net;
using System.Text;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Paths in every encoding an attacker might try, sent byte for byte (HttpClient would normalise them), on
/// each store, in cleartext and over TLS. A path is either refused with 400 problem+json before anything is
/// written, or it names one distinct key inside the store — Kestrel decodes the path once and removes dot
/// segments (RFC 3986 §5.2.4), and the key is that result byte for byte, never decoded again — and nothing
/// outside the store is ever touched.
/// </summary>
public abstract class HostilePathTests(FilesServer server)
{
    public enum Transport
    {
        Cleartext,
        Tls,
    }

    /// <summary>Paths (after <c>/files/{root}/</c>) refused with 400 problem+json by the key rules.</summary>
    public static TheoryData<string, Transport> RefusedPaths()
    {
        var cases = new TheoryData<string, Transport>();
        foreach (var transport in new[] { Transport.Cleartext, Transport.Tls })
        {
            foreach (var path in new[]
            {
                "%2e%2e%2fescape",
                "a%2f..%2f..%2f..%2fescape",
                "%252e%252e%252fescape",
                "%2e%2e%5c%2e%2e%5cescape",
                "a%5Cb",
                "a%0Ab",
                "a%0Db",
                "a%09b",
                "a%1Bb",
                "a%7Fb",
                "a%C2%9Fb",
                "a/b/",
                "a//b",
                "%2efreight-lock",
                "x.freight-tmp",
                new string('s', 241),
                string.Join('/', Enumerable.Repeat(new string('k', 200), 6)),
            })
            {
                cases.Add(path, transport);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(RefusedPaths))]
    public async Task Put_RefusedPath_Returns400ProblemAndWritesNothing(string path, Transport transport)
    {
        var root = NewRoot();
        var before = server.DataDirectorySnapshot();

        var response = await PutRawAsync(transport, $"/files/{root}/{path}", "hostile"u8.ToArray());

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        Assert.Equal(before, server.DataDirectorySnapshot());
        using var listing = await ListAsync(server, "prefix=" + root);
        Assert.Empty(listing.RootElement.GetProperty("items").EnumerateArray());
    }

    [Theory]
    [InlineData("GET")]
    [InlineData("DELETE")]
    [InlineData("POST")]
    public async Task OtherMethods_EncodedTraversal_Return400Problem(string method)
    {
        var before = server.DataDirectorySnapshot();

        var response = await RawAsync(server.HttpAddress, RawHttpConnection.Head(method, server.HttpAddress, $"/files/{NewRoot()}/%2e%2e%2f%2e%2e%2fescape", "Content-Type: multipart/form-data; boundary=b", "Content-Length: 0"));

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        Assert.Equal(before, server.DataDirectorySnapshot());
    }

    [Fact]
    public async Task Put_EncodedNul_IsRefusedByKestrelAndWritesNothing()
    {
        var root = NewRoot();
        var before = server.DataDirectorySnapshot();

        var response = await PutRawAsync(Transport.Cleartext, $"/files/{root}/a%00b", "hostile"u8.ToArray());

        // Kestrel refuses %00 while parsing the request line: its own plain 400, before any handler.
        Assert.Equal(400, response.StatusCode);
        Assert.Equal(before, server.DataDirectorySnapshot());
    }

    /// <summary>Encoded paths that name one ordinary key (second column: what follows <c>{root}/</c> in it).</summary>
    public static TheoryData<string, string, Transport> ContainedPaths()
    {
        var cases = new TheoryData<string, string, Transport>();
        foreach (var transport in new[] { Transport.Cleartext, Transport.Tls })
        {
            // Decoded once: %25 is a literal '%', so double encoding stays literal text.
            cases.Add("%252e%252e/x", "%2e%2e/x", transport);
            // Overlong UTF-8 is not UTF-8: Kestrel leaves the escapes as they are, and they are just characters.
            cases.Add("%C0%AE%C0%AE/x", "%C0%AE%C0%AE/x", transport);
            // Fullwidth full stops are not dots.
            cases.Add("%EF%BC%8E%EF%BC%8E/x", "\uFF0E\uFF0E/x", transport);
            // Dot segments are resolved by Kestrel before routing, inside /files/{root}.
            cases.Add("a/%2e%2e/b", "b", transport);
            cases.Add("a/%2E/b", "a/b", transport);
            // Trailing dots and spaces, Windows device names, a drive-letter-like colon, bidi and zero-width characters: names like any other.
            cases.Add("trailing.", "trailing.", transport);
            cases.Add("trailing%20", "trailing ", transport);
            cases.Add("...", "...", transport);
            cases.Add("CON", "CON", transport);
            cases.Add("NUL.txt", "NUL.txt", transport);
            cases.Add("com1", "com1", transport);
            cases.Add("C:x", "C:x", transport);
            cases.Add("a%E2%80%AEb", "a\u202Eb", transport);
            cases.Add("%E2%80%8B", "\u200B", transport);
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(ContainedPaths))]
    public async Task Put_EncodedPath_IsOneContainedKey(string path, string expectedName, Transport transport)
    {
        var root = NewRoot();
        var key = $"{root}/{expectedName}";
        var content = Encoding.UTF8.GetBytes("content of " + path);

        var created = await PutRawAsync(transport, $"/files/{root}/{path}", content);

        Assert.True(created.StatusCode == 201, $"{created.StatusCode}: {created.BodyText}");
        using (var body = System.Text.Json.JsonDocument.Parse(created.BodyText))
        {
            Assert.Equal(key, body.RootElement.GetProperty("name").GetString());
        }

        var listed = await ListedAsync(server, key) ?? throw new Xunit.Sdk.XunitException($"'{key}' is not listed");
        Assert.Equal(content.Length, listed.GetProperty("size").GetInt64());
        var read = await SendRawAsync(transport, "GET", $"/files/{root}/{path}");
        Assert.Equal(200, read.StatusCode);
        Assert.Equal(content, read.Body);
        if (server.FilesDirectory is { } files)
        {
            var onDisk = Path.GetFullPath(server.DiskPath(key));
            Assert.StartsWith(Path.GetFullPath(files) + Path.DirectorySeparatorChar, onDisk, StringComparison.Ordinal);
            Assert.Equal(content, await File.ReadAllBytesAsync(onDisk));
        }
    }

    /// <summary>Dot segments that climb above <c>/files</c> leave the files API altogether (a 404 problem: no route), or keep an encoded '/' (400): nothing written anywhere.</summary>
    [Theory]
    [InlineData("/files/%2e%2e/%2e%2e/escape", HttpStatusCode.NotFound)]
    [InlineData("/files/%2E%2E/lab/escape", HttpStatusCode.NotFound)]
    [InlineData("/files/..%2F..%2Fescape", HttpStatusCode.BadRequest)]
    public async Task Put_DotSegmentsAboveTheFilesApi_ProblemAndNothingWritten(string path, HttpStatusCode status)
    {
        var before = server.DataDirectorySnapshot();

        var response = await PutRawAsync(Transport.Cleartext, path, "hostile"u8.ToArray());

        ProblemAssert.IsProblem(response, status);
        Assert.Equal(before, server.DataDirectorySnapshot());
        await server.AssertServingAsync();
    }

    /// <summary>A method the files routes do not have is a 405 problem naming the ones they do (RFC 9110 §15.5.6), on both protocols.</summary>
    [Theory]
    [InlineData("PATCH", Protocol.Http11)]
    [InlineData("PATCH", Protocol.Http2)]
    [InlineData("TRACE", Protocol.Http11)]
    [InlineData("FOO", Protocol.Http2)]
    public async Task OtherMethod_OnAFile_Returns405ProblemWithAllow(string method, Protocol protocol)
    {
        var key = $"{NewRoot()}/file.bin";
        using var request = server.Request(new HttpMethod(method), protocol, "/files/" + key);
        request.Content = new ByteArrayContent("hostile"u8.ToArray());

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.MethodNotAllowed);
        Assert.Contains("PUT", response.Content.Headers.Allow);
        await AssertAbsentAsync(server, key);
    }

    /// <summary>No Unicode normalisation: 'é' precomposed (NFC) and decomposed (NFD) are two keys, each with its own bytes, on every protocol.</summary>
    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Put_NfcAndNfdNames_AreTwoDistinctKeys(Protocol protocol)
    {
        var root = NewRoot();
        var nfc = $"{root}/caf\u00E9.txt";
        var nfd = $"{root}/cafe\u0301.txt";
        var nfcContent = Content(1000, seed: 1);
        var nfdContent = Content(1000, seed: 2);

        foreach (var (key, content) in new[] { (nfc, nfcContent), (nfd, nfdContent) })
        {
            using var put = Put(server, key, content, protocol);
            using var created = await server.Client.SendAsync(put);
            await AssertStatusAsync(created, HttpStatusCode.Created);
        }

        using var listing = await ListAsync(server, "prefix=" + root);
        Assert.Equal(
            new[] { nfc, nfd }.Order(StringComparer.Ordinal),
            listing.RootElement.GetProperty("items").EnumerateArray().Select(item => item.GetProperty("name").GetString()!));
        await AssertStoredAsync(server, nfc, nfcContent);
        await AssertStoredAsync(server, nfd, nfdContent);
    }

    private async Task<RawHttpResponse> PutRawAsync(Transport transport, string pathAndQuery, byte[] body) =>
        await SendRawAsync(transport, "PUT", pathAndQuery, body);

    private async Task<RawHttpResponse> SendRawAsync(Transport transport, string method, string pathAndQuery, byte[]? body = null)
    {
        var address = transport == Transport.Tls ? server.HttpsAddress : server.HttpAddress;
        await using var connection = transport == Transport.Tls
            ? await RawHttpConnection.OpenTlsAsync(address, server.CertificateFingerprint)
            : await RawHttpConnection.OpenAsync(address);
        string[] headers = body is null ? [] : ["Content-Length: " + Invariant(body.Length)];
        await connection.SendAsync(RawHttpConnection.Head(method, address, pathAndQuery, headers));
        var sending = body is null ? Task.CompletedTask : connection.SendIgnoringServerCloseAsync(body);
        var response = await connection.ReadResponseAsync();
        await sending;
        return response;
    }
}

public sealed class HostilePathFileSystemTests(FileSystemFilesServer server) : HostilePathTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class HostilePathMemoryTests(MemoryFilesServer server) : HostilePathTests(server), IClassFixture<MemoryFilesServer>;

public sealed class HostilePathS3Tests(S3FilesServer server) : HostilePathTests(server), IClassFixture<S3FilesServer>;
