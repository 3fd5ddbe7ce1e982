using System.Net;
using System.Net.Http.Headers;
using System.Net.Sockets;
using System.Text;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// Freight:Files:MaxFileBytes (1 MiB here): a file over it is refused with 413 — before the body when the
/// length is declared, as soon as it passes the limit when it is not — and nothing is stored.
/// </summary>
public sealed class FilesSizeLimitTests(SmallLimitFilesServer server) : IClassFixture<SmallLimitFilesServer>
{
    private const int Limit = SmallLimitFilesServer.Limit;

    [Fact]
    public async Task Put_ContentLengthOverLimit_Returns413BeforeTheBody()
    {
        var key = $"{NewRoot()}/declared.bin";
        var head = RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: " + Invariant(Limit + 1));

        // Headers only: the answer must come without the server waiting for a single body byte.
        var response = await RawAsync(server.HttpAddress, head);

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Equal("close", response.Header("Connection"));
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Put_ExpectContinueOverLimit_Returns413InsteadOfContinue()
    {
        var key = $"{NewRoot()}/expect.bin";
        var head = RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: " + Invariant(Limit + 1), "Expect: 100-continue");

        // RFC 9110 §10.1.1: the server may answer with the final status instead of 100 (Continue).
        var response = await RawAsync(server.HttpAddress, head);

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Put_ChunkedBodyGrowingPastLimit_Returns413AndStoresNothing()
    {
        var key = $"{NewRoot()}/chunked.bin";
        var head = RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Transfer-Encoding: chunked");
        byte[] body = [.. RawHttpConnection.Chunked(Content(2 * Limit), 64 * 1024), .. RawHttpConnection.LastChunk];

        RawHttpResponse? response = null;
        try
        {
            response = await RawAsync(server.HttpAddress, head, body);
        }
        catch (Exception closed) when (closed is IOException or SocketException)
        {
            // The server may close the connection instead of answering while the client still sends.
        }

        if (response is not null)
        {
            ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
        }

        Assert.True(await EventuallyAsync(() => server.FilesTempFiles().Length == 0), "the temp file outlived the request");
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Put_BodyWithoutLengthPastLimitOnHttp2_Returns413AndStoresNothing()
    {
        var key = $"{NewRoot()}/h2.bin";
        using var request = server.Request(HttpMethod.Put, Protocol.Http2, "/files/" + key);
        request.Content = new StreamContent(new ForwardOnlyStream(Content(Limit + 1)));

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.RequestEntityTooLarge);
        await AssertAbsentAsync(server, key);
    }

    /// <summary>
    /// The limit is on the file, not on the wire: HTTP/1.1 chunk framing (size lines, CRLFs) must not count
    /// against it, so a file of exactly MaxFileBytes is stored however it is framed.
    /// </summary>
    [Theory]
    [InlineData(Framing.ContentLength, Protocol.Http11)]
    [InlineData(Framing.Chunked, Protocol.Http11)]
    [InlineData(Framing.ContentLength, Protocol.Http2)]
    [InlineData(Framing.Chunked, Protocol.Http2)]
    public async Task Put_BodyExactlyAtLimit_IsStored(Framing framing, Protocol protocol)
    {
        var key = $"{NewRoot()}/at-limit.bin";
        var content = Content(Limit);
        using var request = server.Request(HttpMethod.Put, protocol, "/files/" + key);
        request.Content = framing == Framing.ContentLength ? new ByteArrayContent(content) : new StreamContent(new ForwardOnlyStream(content));
        request.Headers.TransferEncodingChunked = framing == Framing.Chunked && protocol == Protocol.Http11;

        using var response = await server.Client.SendAsync(request);

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, key, content);
    }

    [Fact]
    public async Task Post_MultipartFilePartPastLimit_Returns413AndStoresNothing()
    {
        var prefix = NewRoot();
        const string boundary = "limit-boundary";
        byte[] body =
        [
            .. Encoding.ASCII.GetBytes($"--{boundary}\r\nContent-Disposition: form-data; name=\"f\"; filename=\"big.bin\"\r\n\r\n"),
            .. Content(Limit + 1),
            .. Encoding.ASCII.GetBytes($"\r\n--{boundary}--\r\n"),
        ];
        var head = RawHttpConnection.Head("POST", server.HttpAddress, "/files/" + prefix,
            "Content-Type: multipart/form-data; boundary=" + boundary, "Content-Length: " + Invariant(body.Length));

        var response = await RawAsync(server.HttpAddress, head, body);

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.True(await EventuallyAsync(() => server.FilesTempFiles().Length == 0), "the temp file outlived the request");
        await AssertAbsentAsync(server, prefix + "/big.bin");
    }
}

/// <summary>
/// MaxFileBytes (4 MiB) set above the server's body limit (1 MiB): it decides, so a form of two 3 MiB files is stored,
/// each file held to it; before, Kestrel's limit capped the whole form (a user's app: 30 MB) while a PUT got MaxFileBytes.
/// </summary>
public sealed class FilesBodyLimitTests(NarrowBodyFilesServer server) : IClassFixture<NarrowBodyFilesServer>
{
    private const string Boundary = "body-limit-boundary";

    [Fact]
    public async Task Post_TwoFilesPastTheServersBodyLimitEachUnderMaxFileBytes_201AndBothStored()
    {
        var prefix = NewRoot();
        var one = Content(3 * Payloads.MiB, seed: 41);
        var two = Content(3 * Payloads.MiB, seed: 42);

        var response = await PostAsync(prefix, ("one.bin", one), ("two.bin", two));

        Assert.Equal(201, response.StatusCode);
        await AssertStoredAsync(server, prefix + "/one.bin", one);
        await AssertStoredAsync(server, prefix + "/two.bin", two);
    }

    [Fact]
    public async Task Post_AFilePastMaxFileBytes_413AndTheFileBeforeItStaysListed()
    {
        var prefix = NewRoot();
        var small = Content(1000, seed: 43);

        var response = await PostAsync(prefix, ("small.bin", small), ("big.bin", Content((4 * Payloads.MiB) + 1, seed: 44)));

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Contains("small.bin", response.BodyText, StringComparison.Ordinal);
        await AssertAbsentAsync(server, prefix + "/big.bin");
        Assert.True(await EventuallyAsync(() => server.FilesTempFiles().Length == 0), "the temp file outlived the request");
    }

    private Task<RawHttpResponse> PostAsync(string prefix, params (string Name, byte[] Content)[] files)
    {
        var body = files.SelectMany(file => (byte[])[
            .. Encoding.ASCII.GetBytes($"--{Boundary}\r\nContent-Disposition: form-data; name=\"f\"; filename=\"{file.Name}\"\r\n\r\n"),
            .. file.Content,
            .. "\r\n"u8]).Concat(Encoding.ASCII.GetBytes($"--{Boundary}--\r\n")).ToArray();
        var head = RawHttpConnection.Head("POST", server.HttpAddress, "/files/" + prefix,
            "Content-Type: multipart/form-data; boundary=" + Boundary, "Content-Length: " + Invariant(body.Length));
        return RawAsync(server.HttpAddress, head, body);
    }
}

/// <summary>Freight:Files:MaxConcurrentUploadsPerClient = 1: a second upload in flight gets 429; a finished or failed one frees its slot.</summary>
public sealed class FilesUploadLimiterTests(LimiterFilesServer server) : IClassFixture<LimiterFilesServer>
{
    private const int Declared = 2 * Payloads.MiB;

    [Fact]
    public async Task Put_SecondConcurrentUploadFromSameClient_Returns429WithRetryAfter()
    {
        var root = NewRoot();
        var first = Content(Declared, seed: 21);
        var second = Content(1000, seed: 22);
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/{root}/first.bin", "Content-Length: " + Invariant(Declared)));
        await connection.SendAsync(first.AsMemory(0, Declared / 2));
        Assert.True(await EventuallyAsync(() => server.FilesTempFiles() is [var temp] && new FileInfo(temp).Length > 0), "the first upload never started writing");

        using (var refused = await PutAsync(server, $"{root}/second.bin", second))
        {
            await ProblemAssert.IsProblemAsync(refused, HttpStatusCode.TooManyRequests);
            Assert.Equal(TimeSpan.FromSeconds(1), refused.Headers.RetryAfter?.Delta);
        }

        await connection.SendAsync(first.AsMemory(Declared / 2));
        var finished = await connection.ReadResponseAsync();
        Assert.Equal(201, finished.StatusCode);

        // The finished upload gave its slot back.
        using (var third = await PutAsync(server, $"{root}/third.bin", second))
        {
            await AssertStatusAsync(third, HttpStatusCode.Created);
        }

        await AssertStoredAsync(server, $"{root}/first.bin", first);
        Assert.Null(await ListedAsync(server, $"{root}/second.bin"));
    }

    [Fact]
    public async Task Put_AfterRefusedUploads_SlotIsFreeAgain()
    {
        var root = NewRoot();
        var content = Content(3000, seed: 23);
        using (var mismatch = await PutAsync(server, $"{root}/a.bin", content, ("Content-Digest", Sha256Field(Content(3000, seed: 24)))))
        {
            await ProblemAssert.IsProblemAsync(mismatch, HttpStatusCode.BadRequest);
        }

        using (var created = await PutAsync(server, $"{root}/a.bin", content))
        {
            await AssertStatusAsync(created, HttpStatusCode.Created);
        }

        using (var failed = await PutAsync(server, $"{root}/a.bin", content, ("If-None-Match", "*")))
        {
            await ProblemAssert.IsProblemAsync(failed, HttpStatusCode.PreconditionFailed);
        }

        using var replaced = await PutAsync(server, $"{root}/a.bin", content);
        await AssertStatusAsync(replaced, HttpStatusCode.NoContent);
    }

    [Fact]
    public async Task Put_AfterAbortedUpload_SlotIsFreeAgain()
    {
        var root = NewRoot();
        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/{root}/aborted.bin", "Content-Length: " + Invariant(Declared)));
            await connection.SendAsync(Content(Declared / 2));
            Assert.True(await EventuallyAsync(() => server.FilesTempFiles() is [var temp] && new FileInfo(temp).Length > 0), "the upload never started writing");
            connection.Reset();
        }

        // The server notices the reset on its own time; a bounded retry while it still counts the upload.
        HttpStatusCode status = 0;
        for (var attempt = 0; attempt < 200 && status is 0 or HttpStatusCode.TooManyRequests; attempt++)
        {
            using var response = await PutAsync(server, $"{root}/next.bin", Content(10));
            status = response.StatusCode;
            if (status == HttpStatusCode.TooManyRequests)
            {
                await Task.Delay(50);
            }
        }

        Assert.Equal(HttpStatusCode.Created, status);
        Assert.Null(await ListedAsync(server, $"{root}/aborted.bin"));
    }
}
