using System.Globalization;
using System.Net;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// A refusal answered before its HTTP/1.1 request's body was read: the server reads and drops the rest of the body
/// within a bound before it closes (RFC 9112 §9.6's lingering close), so a client that writes the whole body before
/// it reads, as a proxy streaming the body does, finishes its writes and reads the problem. Closed with the body
/// unread, the connection was reset: the client's writes failed (EPIPE) and nginx in front answered 502.
/// </summary>
public sealed class LingeringCloseTests(LingeringCloseTests.RefusingServer server) : IClassFixture<LingeringCloseTests.RefusingServer>
{
    private const int Attempts = 5;

    /// <summary>Over every limit of the server, and well within what it drains after a refusal.</summary>
    private const long LargeBody = 48L * 1024 * 1024;

    /// <summary>
    /// Within the files API's 32 MiB, over the server's 1 MiB: refused by what comes before the size. More than the
    /// kernels' buffers and Kestrel's input pipe take in before a close (about 11 MiB on loopback), which a smaller
    /// body could fill whole and never meet the reset.
    /// </summary>
    private const long MidBody = 24L * 1024 * 1024;

    public static TheoryData<string, string, long, string[], HttpStatusCode> Refusals() => new()
    {
        // The files API's own size check, before reading: the body is past Kestrel's limit too.
        { "PUT", "/files/linger/{0}.bin", LargeBody, [Bearer(RefusingServer.WriteToken)], HttpStatusCode.RequestEntityTooLarge },
        // Kestrel's limit, met by the lab's first read of the body.
        { "POST", "/lab/upload/freight?sink=file", LargeBody, [Bearer(RefusingServer.WriteToken), "Content-Type: application/octet-stream"], HttpStatusCode.RequestEntityTooLarge },
        { "PUT", "/files/linger/{0}.bin", LargeBody, [], HttpStatusCode.Unauthorized },
        { "PUT", "/files/linger/{0}.bin", LargeBody, [Bearer(RefusingServer.ReadToken)], HttpStatusCode.Forbidden },
        { "PUT", "/files/linger/{0}.bin", MidBody, [Bearer(RefusingServer.WriteToken), "If-Match: \"none\""], HttpStatusCode.PreconditionFailed },
    };

    [Theory]
    [MemberData(nameof(Refusals))]
    public async Task Refusal_ClientWritesWholeBodyBeforeReading_ReadsTheProblemAndAClose(string method, string path, long bodyBytes, string[] headers, HttpStatusCode status)
    {
        for (var attempt = 0; attempt < Attempts; attempt++)
        {
            var pathAndQuery = string.Format(CultureInfo.InvariantCulture, path, Guid.NewGuid().ToString("N"));
            await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await connection.SendAsync(RawHttpConnection.Head(method, server.HttpAddress, pathAndQuery, [.. headers, ContentLength(bodyBytes)]));

            Assert.Equal(bodyBytes, await connection.SendZerosAsync(bodyBytes));
            var response = await connection.ReadResponseAsync();

            ProblemAssert.IsProblem(response, status);
            Assert.True(await connection.EndsWithCloseAsync(), $"attempt {attempt + 1}: the server reset the connection after its {(int)status}");
        }

        Assert.Empty(server.FilesTempFiles());
        Assert.Empty(server.UploadedFiles());
        await AssertServingAsync();
    }

    public static TheoryData<string> LabUploads() => [.. LabVariants.Uploads];

    /// <summary>
    /// A chunked body over the server's limit, to each of the lab's upload variants: the limit is met mid-body, after
    /// Kestrel's chunked reader has begun. Kestrel's own count of that limit failed its reader for good ("cannot be read
    /// on"), so the body was left unread and the client reset; counted by Freight, the rest is read and dropped.
    /// </summary>
    [Theory]
    [MemberData(nameof(LabUploads))]
    public async Task Post_ChunkedOverTheLimitToTheLab_ClientWritesWholeBodyBeforeReading_Reads413AndAClose(string variant)
    {
        var head = LabVariants.IsMultipart(variant) ? MultipartBodies.Head() : [];
        for (var attempt = 0; attempt < Attempts; attempt++)
        {
            await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await connection.SendAsync(RawHttpConnection.Head("POST", server.HttpAddress, $"/lab/upload/{variant}?sink=file",
                Bearer(RefusingServer.WriteToken), "Content-Type: " + LabVariants.ContentType(variant), "Transfer-Encoding: chunked"));

            Assert.Equal(head.Length + LargeBody, await connection.SendChunkedZerosAsync(head, LargeBody));
            var response = await connection.ReadResponseAsync();

            ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
            Assert.Equal("close", response.Header("Connection"));
            Assert.True(await connection.EndsWithCloseAsync(), $"attempt {attempt + 1}: the server reset the connection after its 413");
        }

        Assert.Empty(server.UploadedFiles());
        await AssertServingAsync();
    }

    /// <summary>
    /// Routing's answer to a path no endpoint serves, which keeps the connection: the body read to its end, the next
    /// request is answered on it. (Made after serve's Content-Length middleware, whose scanner then saw the body go by
    /// at 16 MB/s, a step a byte.)
    /// </summary>
    [Fact]
    public async Task Put_NoRoute_ClientWritesWholeBodyBeforeReading_Reads404AndKeepsTheConnection()
    {
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        for (var attempt = 0; attempt < Attempts; attempt++)
        {
            await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, $"/nowhere/{Guid.NewGuid():N}.bin", ContentLength(LargeBody)));

            Assert.Equal(LargeBody, await connection.SendZerosAsync(LargeBody));
            var response = await connection.ReadResponseAsync();

            ProblemAssert.IsRoutingProblem(response, HttpStatusCode.NotFound);
            Assert.Null(response.Header("Connection"));
        }

        await AssertServingAsync();
    }

    /// <summary>The upload limiter's 429, met while another upload of the same client is in flight.</summary>
    [Fact]
    public async Task Put_OverUploadsPerClient_ClientWritesWholeBodyBeforeReading_Reads429()
    {
        await using var holder = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await holder.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/linger/{Guid.NewGuid():N}.bin", Bearer(RefusingServer.WriteToken), ContentLength(MidBody)));
        await holder.SendZerosAsync(64 * 1024);
        await WaitForUploadInFlightAsync();

        for (var attempt = 0; attempt < Attempts; attempt++)
        {
            await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/linger/{Guid.NewGuid():N}.bin", Bearer(RefusingServer.WriteToken), ContentLength(MidBody)));

            Assert.Equal(MidBody, await connection.SendZerosAsync(MidBody));
            var response = await connection.ReadResponseAsync();

            ProblemAssert.IsProblem(response, HttpStatusCode.TooManyRequests);
            Assert.True(await connection.EndsWithCloseAsync(), $"attempt {attempt + 1}: the server reset the connection after its 429");
        }

        holder.Reset();
        await AssertServingAsync();
    }

    /// <summary>
    /// A client that keeps sending after the refusal is not read forever: the connection is cut once the server has
    /// dropped its bound of bytes (or waited its bound of time), and the server goes on serving.
    /// </summary>
    [Fact]
    public async Task Refusal_ClientNeverStopsSending_IsCutAtTheBound()
    {
        const long Endless = 1L << 40;
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/linger/{Guid.NewGuid():N}.bin", Bearer(RefusingServer.WriteToken), ContentLength(Endless)));

        var sent = await connection.SendZerosAsync(Endless);

        // What the kernels' buffers and Kestrel's input pipe hold on top of the bound: a few MiB on loopback.
        const long Buffered = 64L * 1024 * 1024;
        Assert.True(sent < Freight.AspNetCore.Errors.LingeringClose.MaxBytes + Buffered, $"the client sent {sent} bytes before the server cut it");
        await AssertServingAsync();
    }

    /// <summary>A one-byte download over each protocol, with the token the server's lab asks for.</summary>
    private async Task AssertServingAsync()
    {
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            using var request = server.Request(HttpMethod.Get, protocol, "/lab/download/bytes?size=1");
            request.Headers.Authorization = new("Bearer", RefusingServer.WriteToken);
            using var response = await server.Client.SendAsync(request);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }
    }

    private static string Bearer(string token) => "Authorization: Bearer " + token;

    private static string ContentLength(long bytes) => "Content-Length: " + bytes.ToString(CultureInfo.InvariantCulture);

    /// <summary>Until the holder's upload has its slot: its temp file exists once the store began writing.</summary>
    private async Task WaitForUploadInFlightAsync()
    {
        for (var poll = 0; poll < 600 && server.FilesTempFiles().Length == 0; poll++)
        {
            await Task.Delay(50);
        }

        Assert.NotEmpty(server.FilesTempFiles());
    }

    /// <summary>
    /// Kestrel takes 1 MiB bodies, the files API 32 MiB files; a read token and a write token; one upload in flight
    /// per client.
    /// </summary>
    public sealed class RefusingServer() : FilesServer(
        "--max-body-bytes", "1048576",
        "--Freight:Files:MaxFileBytes", "33554432",
        "--Freight:Files:ReadTokens:0", ReadToken,
        "--Freight:Files:WriteTokens:0", WriteToken,
        "--Freight:Files:MaxConcurrentUploadsPerClient", "1")
    {
        public const string ReadToken = "r0";

        public const string WriteToken = "w0";
    }
}
