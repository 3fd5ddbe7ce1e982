using System.Text;
using Freight.Bench.Load.Engine;

namespace Freight.Bench.Tests.Load;

/// <summary>
/// <see cref="LoadOptions.ExpectedBody"/> and <see cref="LoadOptions.ExpectedStatusCode"/> on both
/// transports against real servers: every wrong response is counted, exactly, and right ones never are.
/// Bad responses stay responses: tallied by status and recorded in the latency histogram.
/// </summary>
public sealed class ResponseVerificationTests
{
    private const int Requests = 100;

    private const int WrongEvery = 4;

    public static TheoryData<LoadTransport, string> TransportsAndFramings => new()
    {
        { LoadTransport.RawHttp11, "/pattern" },
        { LoadTransport.RawHttp11, "/pattern/chunked" },
        { LoadTransport.HttpClient, "/pattern" },
        { LoadTransport.HttpClient, "/pattern/chunked" },
    };

    [Theory]
    [MemberData(nameof(TransportsAndFramings))]
    public async Task ExpectedBody_EveryBodyRight_NoBadResponses(LoadTransport transport, string path)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url(path),
            Transport = transport,
            Connections = 4,
            MaxRequests = Requests,
            ExpectedStatusCode = 200,
            ExpectedBody = LoadTestServer.PatternBody,
        });

        Assert.Equal(Requests, result.StatusCodes[200]);
        Assert.Equal(0, result.BadResponses);
        Assert.Equal(0, result.BodyMismatches);
        Assert.Equal((long)Requests * LoadTestServer.PatternBytes, result.BodyBytes);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
    }

    [Theory]
    [MemberData(nameof(TransportsAndFramings))]
    public async Task ExpectedBody_EveryFourthBodyWrong_CountsExactlyTheWrongOnes(LoadTransport transport, string path)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url($"{path}?wrongEvery={WrongEvery}"),
            Transport = transport,
            Connections = 4,
            MaxRequests = Requests,
            ExpectedStatusCode = 200,
            ExpectedBody = LoadTestServer.PatternBody,
        });

        // 25 wrong bodies, each kind (a flipped first, middle or last byte, one short, one long) five times.
        Assert.Equal(Requests / WrongEvery, result.BadResponses);
        Assert.Equal(Requests / WrongEvery, result.BodyMismatches);
        Assert.Equal(new Dictionary<int, long> { [200] = Requests }, result.StatusCodes);
        Assert.Equal(Requests, result.Responses);
        Assert.Equal(Requests, result.Latency.Count);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
    }

    [Fact]
    public async Task ExpectedBody_OpenLoopRawPool_CountsExactlyTheWrongOnes()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url($"/pattern?wrongEvery={WrongEvery}"),
            RatePerSecond = 200,
            Connections = 4,
            MaxRequests = Requests,
            ExpectedBody = LoadTestServer.PatternBody,
        });

        Assert.Equal(Requests, result.StatusCodes[200]);
        Assert.Equal(Requests / WrongEvery, result.BadResponses);
        Assert.Equal(Requests / WrongEvery, result.BodyMismatches);
    }

    [Fact]
    public async Task ExpectedBody_BodyReadToClose_CountsExactlyTheWrongOnes()
    {
        // No Content-Length, no chunking: the body ends when the server closes (RFC 9112 §6.3 item 8).
        const string Head = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
        var expected = Encoding.ASCII.GetBytes(new string('a', 40_000) + "end");
        byte[][] responses =
        [
            [.. Encoding.ASCII.GetBytes(Head), .. expected],
            [.. Encoding.ASCII.GetBytes(Head), .. expected[..^1], (byte)'D'],
            [.. Encoding.ASCII.GetBytes(Head), .. expected],
            [.. Encoding.ASCII.GetBytes(Head), .. expected[..^1]],
        ];
        await using var server = RawResponseServer.Start(responses, closeAfterResponse: true);

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url,
            Transport = LoadTransport.RawHttp11,
            MaxRequests = 20,
            ExpectedBody = expected,
        });

        Assert.Equal(20, result.StatusCodes[200]);
        Assert.Equal(10, result.BadResponses);
        Assert.Equal(10, result.BodyMismatches);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
    }

    [Theory]
    [InlineData(LoadTransport.RawHttp11)]
    [InlineData(LoadTransport.HttpClient)]
    public async Task ExpectedStatus_OtherStatus_BadButNotABodyMismatch(LoadTransport transport)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/missing"),
            Transport = transport,
            Connections = 2,
            MaxRequests = 50,
            ExpectedStatusCode = 200,
            ExpectedBody = Encoding.ASCII.GetBytes(LoadTestServer.MissingBody),
        });

        Assert.Equal(new Dictionary<int, long> { [404] = 50 }, result.StatusCodes);
        Assert.Equal(50, result.BadResponses);
        Assert.Equal(0, result.BodyMismatches);
        Assert.Equal(50, result.Latency.Count);
    }

    [Theory]
    [InlineData(LoadTransport.RawHttp11)]
    [InlineData(LoadTransport.HttpClient)]
    public async Task ExpectedBody_NoExpectedStatus_Non2xxBodyNotCompared(LoadTransport transport)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/missing"),
            Transport = transport,
            Connections = 2,
            MaxRequests = 50,
            ExpectedBody = LoadTestServer.PatternBody,
        });

        Assert.Equal(new Dictionary<int, long> { [404] = 50 }, result.StatusCodes);
        Assert.Equal(0, result.BadResponses);
    }

    [Theory]
    [InlineData(LoadTransport.RawHttp11, LoadTestServer.MissingBody, 0)]
    [InlineData(LoadTransport.RawHttp11, "no such thinG", 50)]
    [InlineData(LoadTransport.HttpClient, LoadTestServer.MissingBody, 0)]
    [InlineData(LoadTransport.HttpClient, "no such thinG", 50)]
    public async Task ExpectedStatus404_ErrorBodyCompared(LoadTransport transport, string expectedBody, long bad)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/missing"),
            Transport = transport,
            Connections = 2,
            MaxRequests = 50,
            ExpectedStatusCode = 404,
            ExpectedBody = Encoding.ASCII.GetBytes(expectedBody),
        });

        Assert.Equal(50, result.StatusCodes[404]);
        Assert.Equal(bad, result.BadResponses);
        Assert.Equal(bad, result.BodyMismatches);
    }

    [Fact]
    public async Task NothingExpected_WrongBodies_NoBadResponses()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url($"/pattern?wrongEvery={WrongEvery}"),
            Connections = 2,
            MaxRequests = 40,
        });

        Assert.Equal(40, result.StatusCodes[200]);
        Assert.Equal(0, result.BadResponses);
    }

    [Theory]
    [InlineData(99)]
    [InlineData(199)]
    [InlineData(1000)]
    public void Validate_ExpectedStatusNotAFinalStatus_Throws(int status)
    {
        var options = new LoadOptions { Target = new Uri("http://127.0.0.1:1/"), MaxRequests = 1, ExpectedStatusCode = status };

        Assert.Throws<ArgumentException>(options.Validate);
    }
}
