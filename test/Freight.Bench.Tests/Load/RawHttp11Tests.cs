using System.Security.Cryptography;
using System.Text;
using Freight.Bench.Load.Bodies;
using Freight.Bench.Load.Engine;

namespace Freight.Bench.Tests.Load;

/// <summary>
/// The raw HTTP/1.1 transport (the default for http:// at 1.1) against real Kestrel, and against a raw
/// socket server for what Kestrel never does: idle connections closed silently, malformed responses.
/// </summary>
public sealed class RawHttp11Tests
{
    [Fact]
    public async Task ChunkedResponse_CountBounded_EveryResponseDecodedToItsDataBytes()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/chunked"),
            Transport = LoadTransport.RawHttp11,
            Connections = 4,
            MaxRequests = 200,
        });

        Assert.Equal(200, result.StatusCodes[200]);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors + result.CancelledAtEnd);
        Assert.Equal(200 * LoadTestServer.ChunkedBodyBytes, result.BodyBytes);
    }

    [Fact]
    public async Task LargeBody_OneMebibyte_ByteCountExact()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/large"),
            Connections = 2,
            MaxRequests = 20,
        });

        Assert.Equal(20, result.StatusCodes[200]);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
        Assert.Equal(20L * LoadTestServer.LargeBodyBytes, result.BodyBytes);
    }

    [Fact]
    public async Task LargeBody_ExpectedBytes_EveryByteMatchesAfterTheLargerBuffer()
    {
        // 1 MiB is above the size at which the connection swaps in its large body buffer, with body bytes already buffered.
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/large"),
            Transport = LoadTransport.RawHttp11,
            Connections = 2,
            MaxRequests = 10,
            ExpectedStatusCode = 200,
            ExpectedBody = new byte[LoadTestServer.LargeBodyBytes],
        });

        Assert.Equal(10, result.StatusCodes[200]);
        Assert.Equal(0, result.BadResponses + result.SocketErrors + result.Timeouts + result.Errors);
        Assert.Equal(10L * LoadTestServer.LargeBodyBytes, result.BodyBytes);
    }

    [Theory]
    [InlineData("PUT")]
    [InlineData("POST")]
    public async Task FileBody_AutoTransport_RawSendsTheFileBytesEveryRequest(string method)
    {
        await using var server = await LoadTestServer.StartAsync();
        using var file = new TemporaryFile(300_007);
        var options = new LoadOptions
        {
            Target = server.Url("/sha256"),
            Method = new HttpMethod(method),
            Body = new FileBody(file.Path),
            Connections = 2,
            MaxRequests = 8,
            ExpectedStatusCode = 200,
            ExpectedBody = Encoding.ASCII.GetBytes(Convert.ToHexStringLower(SHA256.HashData(file.Bytes))),
        };

        var result = await LoadEngine.RunAsync(options);

        Assert.True(options.UsesRawHttp11);
        Assert.Equal(8, result.StatusCodes[200]);
        Assert.Equal(0, result.BadResponses + result.SocketErrors + result.Timeouts + result.Errors);
    }

    [Fact]
    public async Task FileBody_FileGrewAfterTheRunDeclaredIt_EveryRequestFailsNamingTheFile()
    {
        await using var server = await LoadTestServer.StartAsync();
        using var file = new TemporaryFile(1000);
        var body = new FileBody(file.Path);
        await File.AppendAllTextAsync(file.Path, "more");

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/sha256"),
            Method = HttpMethod.Put,
            Body = body,
            Transport = LoadTransport.RawHttp11,
            MaxRequests = 3,
        });

        Assert.Empty(result.StatusCodes);
        Assert.Equal(3, result.Errors);
        Assert.Contains("changed during the run", result.FirstFailure!.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ConnectionClose_CountBounded_ReconnectsAndCompletesExactlyN(bool openLoop)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/close"),
            Connections = 4,
            RatePerSecond = openLoop ? 400 : null,
            MaxRequests = 300,
        });

        Assert.Equal(300, result.StatusCodes[200]);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors + result.Dropped);
        Assert.Equal(300L * "closing".Length, result.BodyBytes);
    }

    [Fact]
    public async Task NotFoundWithBody_TalliedAsResponseWithItsBody()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/missing"),
            Connections = 2,
            MaxRequests = 100,
        });

        Assert.Equal(new Dictionary<int, long> { [404] = 100 }, result.StatusCodes);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
        Assert.Equal(100L * LoadTestServer.MissingBody.Length, result.BodyBytes);
    }

    [Fact]
    public async Task IdleConnectionClosedWithoutNotice_RequestRetriedOnANewConnection()
    {
        // Keep-alive by the headers, yet the server closes each connection after one response.
        const string Response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        await using var server = RawResponseServer.Start(Response, closeAfterResponse: true);

        var result = await LoadEngine.RunAsync(new LoadOptions { Target = server.Url, MaxRequests = 20 });

        Assert.Equal(20, result.StatusCodes[200]);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
        Assert.Equal(40, result.BodyBytes);
    }

    [Fact]
    public async Task PipelinedExtraResponseBytes_KeptForTheNextResponse()
    {
        // Every request gets two responses' worth of chunked bytes in one write; the second stays buffered
        // and answers the next request, which leaves the server's next write buffered in turn.
        const string One = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n";
        await using var server = RawResponseServer.Start(One + One, closeAfterResponse: false);

        var result = await LoadEngine.RunAsync(new LoadOptions { Target = server.Url, MaxRequests = 10 });

        Assert.Equal(10, result.StatusCodes[200]);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
        Assert.Equal(50, result.BodyBytes);
    }

    [Theory]
    [InlineData("garbage\r\n\r\n")]
    [InlineData("HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n")]
    [InlineData("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")]
    public async Task MalformedResponse_CountedAsErrorNotCrash(string response)
    {
        await using var server = RawResponseServer.Start(response, closeAfterResponse: false);

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url,
            MaxRequests = 5,
            RequestTimeout = TimeSpan.FromSeconds(5),
        });

        Assert.Equal(5, result.Errors);
        Assert.Empty(result.StatusCodes);
        Assert.Equal("invalid_response", result.FirstFailure!.Code);
        Assert.StartsWith("invalid response: malformed ", result.FirstFailure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_RawHttp11WithGeneratedBody_Throws()
    {
        var options = new LoadOptions
        {
            Target = new Uri("http://127.0.0.1:1/"),
            Method = HttpMethod.Put,
            Body = new PayloadBody(10),
            MaxRequests = 1,
            Transport = LoadTransport.RawHttp11,
        };

        Assert.False(options with { Transport = LoadTransport.Auto } is { UsesRawHttp11: true });
        Assert.Throws<ArgumentException>(options.Validate);
    }

    [Fact]
    public void Validate_RawHttp11OverHttps_Throws()
    {
        var options = new LoadOptions { Target = new Uri("https://127.0.0.1:1/"), MaxRequests = 1, Transport = LoadTransport.RawHttp11 };

        Assert.Throws<ArgumentException>(options.Validate);
    }

    /// <summary>A temporary file of deterministic bytes, deleted at the end.</summary>
    private sealed class TemporaryFile : IDisposable
    {
        public TemporaryFile(int length)
        {
            Bytes = new byte[length];
            for (var i = 0; i < length; i++)
            {
                Bytes[i] = (byte)(i * 31 + (i >> 8));
            }

            File.WriteAllBytes(Path, Bytes);
        }

        public string Path { get; } = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"freight-raw-{Guid.NewGuid():N}.bin");

        public byte[] Bytes { get; }

        public void Dispose() => File.Delete(Path);
    }
}
