using System.Net;
using System.Text;
using Freight.AspNetCore.Errors;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Bodies framed wrongly on purpose, over raw sockets: each is refused with a 400 problem on every upload endpoint,
/// nothing is stored, the refusal is logged once (and Kestrel logs nothing more about it), and the server keeps serving.
/// </summary>
public sealed class FramingTests(FileSystemTusServer server, SmallLimitFilesServer limited) : IClassFixture<FileSystemTusServer>, IClassFixture<SmallLimitFilesServer>
{
    /// <summary>A chunk size of 96 bits: no integer holds it (Kestrel's parser overflows past 31 bits).</summary>
    private static readonly byte[] s_overflowingChunk = Encoding.ASCII.GetBytes("FFFFFFFFFFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n");

    public static TheoryData<string> UploadEndpoints() =>
        new(["files PUT", "files POST", "tus POST", "tus PATCH", .. LabVariants.Uploads.Select(variant => "lab " + variant)]);

    [Theory]
    [MemberData(nameof(UploadEndpoints))]
    public async Task ChunkedBody_ChunkSizeOverflowing64Bits_Returns400ProblemAndLogsOnce(string endpoint)
    {
        var key = FilesApi.NewRoot() + "/overflow.bin";
        var tus = endpoint == "tus PATCH" ? await TusApi.CreateAsync(server, 3, key) : null;
        var (method, path, headers) = endpoint switch
        {
            "files PUT" => ("PUT", "/files/" + key, new[] { "Content-Type: application/octet-stream" }),
            "files POST" => ("POST", "/files/" + key[..key.IndexOf('/', StringComparison.Ordinal)], ["Content-Type: " + MultipartBodies.ContentType]),
            "tus POST" => ("POST", "/tus/", ["Tus-Resumable: " + TusApi.Version, "Content-Type: " + TusApi.OffsetStream, "Upload-Length: 3",
                "Upload-Metadata: " + TusApi.Metadata(("filename", key))]),
            "tus PATCH" => ("PATCH", tus!, ["Tus-Resumable: " + TusApi.Version, "Content-Type: " + TusApi.OffsetStream, "Upload-Offset: 0"]),
            _ => ("POST", $"/lab/upload/{endpoint[4..]}?sink=file", ["Content-Type: " + LabVariants.ContentType(endpoint[4..])]),
        };
        var mark = server.Logs.Count;

        var response = await SendAndWaitForCloseAsync(server, method, path, [.. headers, "Transfer-Encoding: chunked"], s_overflowingChunk);

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        if (endpoint == "lab iformfile")
        {
            // The lab's stock MVC path: model binding answers its own 400 validation problem and logs nothing.
            Assert.Empty(server.Logs.Since(mark));
        }
        else
        {
            AssertLoggedOnce(server.Logs.Since(mark), "rejected with 400");
        }
        await FilesApi.AssertAbsentAsync(server, key);
        if (tus is not null)
        {
            Assert.Equal(0, await TusApi.OffsetAsync(server, tus));
        }

        Assert.Empty(server.UploadedFiles());
        Assert.Empty(server.TempFiles());
        await server.AssertServingAsync();
    }

    /// <summary>
    /// RFC 9110 §8.6: <c>Content-Length = 1*DIGIT</c>. Kestrel parses a sign and keeps only the number; the server
    /// refuses the request before any endpoint reads the body, and closes the connection (RFC 9112 §6.3).
    /// </summary>
    [Theory]
    [InlineData("+5")]
    [InlineData("+0005")]
    public async Task Put_ContentLengthWithASign_Returns400ProblemAndStoresNothing(string contentLength)
    {
        var key = FilesApi.NewRoot() + "/signed.bin";
        var mark = server.Logs.Count;

        var response = await SendAndWaitForCloseAsync(server, "PUT", "/files/" + key, ["Content-Length: " + contentLength], "hello"u8.ToArray());

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        Assert.Equal("close", response.Header("Connection"));
        AssertLoggedOnce(server.Logs.Since(mark), "rejected with 400");
        await FilesApi.AssertAbsentAsync(server, key);
        await server.AssertServingAsync();
    }

    /// <summary>
    /// What the RFC allows stays allowed: leading zeros, whitespace around the value — and a body that looks like a
    /// head with a signed length, on a kept-alive connection, is a body: the next request is judged by its own head.
    /// </summary>
    [Fact]
    public async Task Put_ContentLengthWithZerosOrWhitespaceAfterALookalikeBody_IsStored()
    {
        var root = FilesApi.NewRoot();
        var lookalike = "PUT /files/x HTTP/1.1\r\nContent-Length: +5\r\n\r\n"u8.ToArray();
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);

        await connection.SendAsync((byte[])[.. RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/{root}/a.bin", "Content-Length: " + FilesApi.Invariant(lookalike.Length)), .. lookalike]);
        var first = await connection.ReadResponseAsync();
        await connection.SendAsync((byte[])[.. RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/{root}/b.bin", "Content-Length: \t0005 "), .. "hello"u8]);
        var second = await connection.ReadResponseAsync();

        Assert.Equal(201, first.StatusCode);
        Assert.Equal(201, second.StatusCode);
        await FilesApi.AssertStoredAsync(server, root + "/a.bin", lookalike);
        await FilesApi.AssertStoredAsync(server, root + "/b.bin", "hello"u8.ToArray());
    }

    /// <summary>
    /// A chunked PUT past the file limit is refused part-way: the handler stops reading, and Kestrel's own drain of the
    /// rest must not fail on a read the handler left open ("Reading is already in progress", one <c>fail:</c> a request).
    /// </summary>
    [Fact]
    public async Task ChunkedPut_OverFileLimit_Returns413AndLogsOnce()
    {
        var key = FilesApi.NewRoot() + "/big.bin";
        var body = FilesApi.Content(2 * SmallLimitFilesServer.Limit);
        var mark = limited.Logs.Count;

        var response = await SendAndWaitForCloseAsync(limited, "PUT", "/files/" + key, ["Transfer-Encoding: chunked"],
            [.. RawHttpConnection.Chunked(body, 64 * 1024), .. RawHttpConnection.LastChunk]);

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
        AssertLoggedOnce(limited.Logs.Since(mark), "rejected with 413");
        await FilesApi.AssertAbsentAsync(limited, key);
        await limited.AssertServingAsync();
    }

    /// <summary>The same for a chunked tus PATCH past its Upload-Length.</summary>
    [Fact]
    public async Task ChunkedPatch_PastUploadLength_Returns413AndLogsOnce()
    {
        var key = FilesApi.NewRoot() + "/big.bin";
        var path = await TusApi.CreateAsync(server, 1024, key);
        var body = FilesApi.Content(1024 * 1024);
        var mark = server.Logs.Count;

        var response = await SendAndWaitForCloseAsync(server, "PATCH", path,
            ["Tus-Resumable: " + TusApi.Version, "Content-Type: " + TusApi.OffsetStream, "Upload-Offset: 0", "Transfer-Encoding: chunked"],
            [.. RawHttpConnection.Chunked(body, 64 * 1024), .. RawHttpConnection.LastChunk]);

        TusApi.AssertRefused(response, HttpStatusCode.RequestEntityTooLarge);
        AssertLoggedOnce(server.Logs.Since(mark), "rejected with 413");
        await TusApi.AssertHoldsAsync(server, path, body, 0, key);
    }

    /// <summary>
    /// Sends a request over a raw socket and reads the answer; when the server closes after it (it refused a body it did
    /// not read), waits for the close: the server is done with the request then, its logging included.
    /// </summary>
    internal static async Task<RawHttpResponse> SendAndWaitForCloseAsync(ServerHarness target, string method, string path, string[] headers, byte[] body)
    {
        await using var connection = await RawHttpConnection.OpenAsync(target.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head(method, target.HttpAddress, path, headers));
        var sending = connection.SendIgnoringServerCloseAsync(body);
        var response = await connection.ReadResponseAsync();
        if (response.Header("Connection") == "close")
        {
            await connection.ReadUntilClosedAsync();
        }

        await connection.DisposeAsync();
        await sending;
        return response;
    }

    /// <summary>Exactly one warning or worse, the problem middleware's refusal: no Kestrel error about the same request.</summary>
    private static void AssertLoggedOnce(IReadOnlyList<CapturedLog> logged, string refusal)
    {
        var entry = Assert.Single(logged);
        Assert.Equal(typeof(ProblemMiddleware).FullName, entry.Category);
        // The client's error: Information, so a server logging at Warning does not print what any client can send.
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Information, entry.Level);
        Assert.Contains(refusal, entry.Message, StringComparison.Ordinal);
    }
}
