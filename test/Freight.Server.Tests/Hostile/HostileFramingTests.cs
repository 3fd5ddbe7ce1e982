using System.Net;
using System.Text;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Request framing an attacker controls (RFC 9112 §6–7), sent byte for byte on a raw socket, in cleartext and
/// over TLS: every ambiguous or broken message is refused before anything is stored, a message with both
/// Content-Length and Transfer-Encoding is framed by the chunks and its connection closed (§6.3: no request
/// smuggled after it), and the server keeps serving. Framing is the store's business only through what gets
/// stored, so one store (the file system, whose disk can be looked at) stands for all.
/// </summary>
public sealed class HostileFramingTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    public enum Transport
    {
        Cleartext,
        Tls,
    }

    public static TheoryData<Transport> Transports() => [Transport.Cleartext, Transport.Tls];

    /// <summary>Headers whose framing is ambiguous or unsupported, with a 5-byte body: Kestrel refuses them itself (a plain 400).</summary>
    public static TheoryData<string, Transport> AmbiguousFraming()
    {
        var cases = new TheoryData<string, Transport>();
        foreach (var transport in new[] { Transport.Cleartext, Transport.Tls })
        {
            foreach (var headers in new[]
            {
                "Content-Length: 5\r\nContent-Length: 6",
                "Content-Length: 5, 5",
                "Content-Length: 5, 6",
                "Content-Length: -5",
                "Content-Length: 0x5",
                "Content-Length: 99999999999999999999999",
                "Transfer-Encoding: chunked, identity",
                "Transfer-Encoding: gzip",
                "Content-Length : 5",
            })
            {
                cases.Add(headers, transport);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(AmbiguousFraming))]
    public async Task Put_AmbiguousFraming_Returns400ClosesAndStoresNothing(string framing, Transport transport)
    {
        var key = $"{NewRoot()}/framed.bin";
        var before = server.DataDirectorySnapshot();

        var (response, rest) = await ExchangeAsync(transport, Head("PUT", "/files/" + key, framing.Split("\r\n")), "hello"u8.ToArray());

        Assert.Equal(400, response.StatusCode);
        Assert.Equal("close", response.Header("Connection"));
        Assert.Empty(rest);
        Assert.Equal(before, server.DataDirectorySnapshot());
        await AssertAbsentAsync(server, key);
    }

    /// <summary>
    /// RFC 9112 §6.3: Content-Length beside Transfer-Encoding is overridden by the chunks, and the connection is
    /// closed after the answer. Read as Content-Length: 5 the body would be "5\r\nhe" and the rest a second
    /// request — a PUT the client never made visible to a proxy. Neither happens.
    /// </summary>
    [Theory]
    [MemberData(nameof(Transports))]
    public async Task Put_ContentLengthAndChunked_TheChunksFrameItAndNothingIsSmuggled(Transport transport)
    {
        var root = NewRoot();
        var key = $"{root}/framed.bin";
        var smuggledKey = $"{root}/smuggled.bin";
        byte[] body =
        [
            .. "5\r\nhello\r\n0\r\n\r\n"u8,
            .. Head("PUT", "/files/" + smuggledKey, "Content-Length: 3"),
            .. "bad"u8,
        ];

        var (response, rest) = await ExchangeAsync(transport, Head("PUT", "/files/" + key, "Content-Length: 5", "Transfer-Encoding: chunked"), body);

        Assert.True(response.StatusCode == 201, $"{response.StatusCode}: {response.BodyText}");
        Assert.Equal("close", response.Header("Connection"));
        Assert.Empty(rest);
        await AssertStoredAsync(server, key, "hello"u8.ToArray());
        await AssertAbsentAsync(server, smuggledKey);
    }

    /// <summary>Broken chunked bodies: Kestrel fails the read, the files API answers 400 problem+json and stores nothing.</summary>
    public static TheoryData<string, Transport> BrokenChunks()
    {
        var cases = new TheoryData<string, Transport>();
        foreach (var transport in new[] { Transport.Cleartext, Transport.Tls })
        {
            foreach (var chunks in new[]
            {
                "zz\r\nhello\r\n0\r\n\r\n",
                "-5\r\nhello\r\n0\r\n\r\n",
                "0x5\r\nhello\r\n0\r\n\r\n",
                " 5\r\nhello\r\n0\r\n\r\n",
                "5 \r\nhello\r\n0\r\n\r\n",
                "5\r\nhelloXX0\r\n\r\n",
                "5\r\nhello0\r\n\r\n",
                "5\nhello\n0\n\n",
            })
            {
                cases.Add(chunks, transport);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(BrokenChunks))]
    public async Task Put_BrokenChunk_Returns400ProblemAndStoresNothing(string chunks, Transport transport)
    {
        var key = $"{NewRoot()}/chunked.bin";
        var before = server.DataDirectorySnapshot();
        await using var connection = await OpenAsync(transport);
        await connection.SendAsync(Head("PUT", "/files/" + key, "Transfer-Encoding: chunked"));
        await connection.SendAsync(Encoding.ASCII.GetBytes(chunks));

        var response = await connection.ReadResponseAsync();

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        Assert.Equal("close", response.Header("Connection"));
        Assert.Empty(await connection.ReadUntilClosedAsync());
        Assert.Equal(before, server.DataDirectorySnapshot());
        Assert.Empty(server.TempFiles());
        await server.AssertServingAsync();
    }

    /// <summary>Chunk extensions and trailer fields carry nothing the server uses (RFC 9112 §7.1.1, §7.1.2): ignored, even when a trailer claims a length.</summary>
    [Theory]
    [InlineData("5;ext=1\r\nhello\r\n0\r\n\r\n")]
    [InlineData("5;ext=\"quoted;value\"\r\nhello\r\n0\r\n\r\n")]
    [InlineData("5\r\nhello\r\n0\r\nContent-Length: 999\r\nX-Trailer: 1\r\n\r\n")]
    [InlineData("2\r\nhe\r\n3;x\r\nllo\r\n0;last\r\n\r\n")]
    public async Task Put_ChunkExtensionsAndTrailers_AreIgnoredAndTheDataStored(string chunks)
    {
        var key = $"{NewRoot()}/extended.bin";

        var response = await RawAsync(server.HttpAddress, Head("PUT", "/files/" + key, "Transfer-Encoding: chunked"), Encoding.ASCII.GetBytes(chunks));

        Assert.True(response.StatusCode == 201, $"{response.StatusCode}: {response.BodyText}");
        await AssertStoredAsync(server, key, "hello"u8.ToArray());
    }

    /// <summary>Trailer sections past Kestrel's header limits: 431 problem+json (the app was reading the body), nothing stored.</summary>
    [Theory]
    [InlineData(1, 40_000)]
    [InlineData(500, 1)]
    public async Task Put_HugeTrailerSection_Returns431ProblemAndStoresNothing(int count, int valueLength)
    {
        var key = $"{NewRoot()}/trailed.bin";
        var trailers = string.Concat(Enumerable.Range(0, count).Select(i => $"X-T{i}: {new string('t', valueLength)}\r\n"));

        var (response, _) = await ExchangeAsync(Transport.Cleartext, Head("PUT", "/files/" + key, "Transfer-Encoding: chunked"), Encoding.ASCII.GetBytes($"5\r\nhello\r\n0\r\n{trailers}\r\n"));

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestHeaderFieldsTooLarge);
        await AssertAbsentAsync(server, key);
    }

    /// <summary>Heads past Kestrel's limits (32 KiB of headers, 100 fields, 8 KiB request line), with obsolete line folding or an HTTP/1.0 body without a length: refused by Kestrel itself before any handler runs.</summary>
    public static TheoryData<string, int, Transport> OversizedOrFoldedHeads()
    {
        var cases = new TheoryData<string, int, Transport>();
        foreach (var transport in new[] { Transport.Cleartext, Transport.Tls })
        {
            cases.Add("one-40k-header", 431, transport);
            cases.Add("200-headers", 431, transport);
            cases.Add("9k-request-line", 414, transport);
            cases.Add("obs-fold", 400, transport);
            cases.Add("two-hosts", 400, transport);
            cases.Add("no-host", 400, transport);
            cases.Add("http10-put-without-length", 400, transport);
            cases.Add("http10-tus-creation-without-length", 400, transport);
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(OversizedOrFoldedHeads))]
    public async Task Put_OversizedOrFoldedHead_IsRefusedAndStoresNothing(string kind, int status, Transport transport)
    {
        var root = NewRoot();
        var path = $"/files/{root}/head.bin";
        var authority = Address(transport).Authority;
        var head = kind switch
        {
            "one-40k-header" => $"PUT {path} HTTP/1.1\r\nHost: {authority}\r\nX-Big: {new string('a', 40_000)}\r\nContent-Length: 5\r\n\r\n",
            "200-headers" => $"PUT {path} HTTP/1.1\r\nHost: {authority}\r\n{string.Concat(Enumerable.Range(0, 200).Select(i => $"X-H{i}: 1\r\n"))}Content-Length: 5\r\n\r\n",
            "9k-request-line" => $"PUT /files/{root}/{new string('a', 9000)} HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 5\r\n\r\n",
            "obs-fold" => $"PUT {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: text/plain\r\n ;charset=utf-8\r\nContent-Length: 5\r\n\r\n",
            "two-hosts" => $"PUT {path} HTTP/1.1\r\nHost: {authority}\r\nHost: other\r\nContent-Length: 5\r\n\r\n",
            "no-host" => $"PUT {path} HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
            // HTTP/1.0 has no chunked framing, so a POST or PUT without Content-Length would run to the connection's end:
            // Kestrel refuses it. nginx speaks HTTP/1.0 upstream unless told proxy_http_version 1.1 (docs/server.md).
            "http10-put-without-length" => $"PUT {path} HTTP/1.0\r\nHost: {authority}\r\n\r\n",
            "http10-tus-creation-without-length" => $"POST /tus/ HTTP/1.0\r\nHost: {authority}\r\nTus-Resumable: 1.0.0\r\nUpload-Length: 5\r\n\r\n",
            _ => throw new ArgumentOutOfRangeException(nameof(kind)),
        };
        var before = server.DataDirectorySnapshot();

        var (response, rest) = await ExchangeAsync(transport, Encoding.ASCII.GetBytes(head), "hello"u8.ToArray());

        Assert.Equal(status, response.StatusCode);
        Assert.Equal("close", response.Header("Connection"));
        Assert.Empty(rest);
        Assert.Equal(before, server.DataDirectorySnapshot());
        await AssertAbsentAsync(server, $"{root}/head.bin");
    }

    /// <summary>
    /// HTTP/2 holds the head to the same 32 KiB as HTTP/1.1 (Kestrel's MaxRequestHeadersTotalSize, after HPACK decoding):
    /// past it Kestrel answers 431 or ends the connection — never a handler run.
    /// </summary>
    [Fact]
    public async Task Put_HugeHeaderFieldOnHttp2_IsRefusedAndStoresNothing()
    {
        var key = $"{NewRoot()}/h2-header.bin";
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var request = Put(server, key, "hello"u8.ToArray(), Protocol.Http2);
        Assert.True(request.Headers.TryAddWithoutValidation("X-Big", new string('a', 40_000)));

        try
        {
            using var response = await client.SendAsync(request);
            Assert.Equal(HttpStatusCode.RequestHeaderFieldsTooLarge, response.StatusCode);
        }
        catch (HttpRequestException)
        {
            // The connection was ended instead of answered.
        }

        await AssertAbsentAsync(server, key);
        await server.AssertServingAsync();
    }

    private Uri Address(Transport transport) => transport == Transport.Tls ? server.HttpsAddress : server.HttpAddress;

    private byte[] Head(string method, string pathAndQuery, params string[] headers) =>
        RawHttpConnection.Head(method, server.HttpAddress, pathAndQuery, headers);

    private Task<RawHttpConnection> OpenAsync(Transport transport) =>
        transport == Transport.Tls
            ? RawHttpConnection.OpenTlsAsync(server.HttpsAddress, server.CertificateFingerprint)
            : RawHttpConnection.OpenAsync(server.HttpAddress);

    /// <summary>Sends the head and body, reads one response, then whatever follows until the server closes.</summary>
    private async Task<(RawHttpResponse Response, byte[] AfterResponse)> ExchangeAsync(Transport transport, byte[] head, byte[] body)
    {
        await using var connection = await OpenAsync(transport);
        await connection.SendAsync(head);
        var sending = connection.SendIgnoringServerCloseAsync(body);
        var response = await connection.ReadResponseAsync();
        var rest = await connection.ReadUntilClosedAsync();
        await sending;
        return (response, rest);
    }
}
