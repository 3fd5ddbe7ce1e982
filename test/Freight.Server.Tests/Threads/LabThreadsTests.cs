using System.Net;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Threads;

/// <summary>Study 3's actions answer the thread counts and the delay they waited, and refuse a bad delay.</summary>
public sealed class LabThreadsTests(LabServer server) : IClassFixture<LabServer>
{
    public static TheoryData<string, Protocol> Variants() => new()
    {
        { "sleep", Protocol.Http11 },
        { "sleep", Protocol.Http2 },
        { "delay", Protocol.Http11 },
        { "delay", Protocol.Http2 },
        { "sync-over-async", Protocol.Http11 },
        { "sync-over-async", Protocol.Http2 },
    };

    [Theory]
    [MemberData(nameof(Variants))]
    public async Task Threads_ShortDelay_AnswersThreadCountsAndTheDelay(string variant, Protocol protocol)
    {
        using var request = server.Request(HttpMethod.Get, protocol, $"/lab/threads/{variant}?ms=10");

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(10, body.RootElement.GetProperty("delayMs").GetInt32());
        Assert.True(body.RootElement.GetProperty("threadPoolThreads").GetInt32() > 0);
        if (OperatingSystem.IsLinux())
        {
            Assert.True(body.RootElement.GetProperty("processThreads").GetInt32() > 0);
        }
    }

    [Fact]
    public async Task Threads_NoDelayGiven_WaitsTheStudysSecond()
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/lab/threads/delay"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(1000, body.RootElement.GetProperty("delayMs").GetInt32());
    }

    [Theory]
    [InlineData("sleep", "0")]
    [InlineData("delay", "0")]
    [InlineData("sync-over-async", "0")]
    public async Task Threads_ZeroDelay_Answers(string variant, string ms)
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, $"/lab/threads/{variant}?ms={ms}"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Theory]
    [InlineData("sleep", "-1")]
    [InlineData("sleep", "abc")]
    [InlineData("sleep", "60001")]
    [InlineData("delay", "-1")]
    [InlineData("delay", "abc")]
    [InlineData("delay", "60001")]
    [InlineData("sync-over-async", "-1")]
    [InlineData("sync-over-async", "abc")]
    [InlineData("sync-over-async", "60001")]
    [InlineData("delay", "1.5")]
    [InlineData("delay", "99999999999")]
    public async Task Threads_BadDelay_IsAProblem400(string variant, string ms)
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, $"/lab/threads/{variant}?ms={ms}"));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
    }
}
