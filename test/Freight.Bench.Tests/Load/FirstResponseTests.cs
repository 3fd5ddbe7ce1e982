using Freight.Bench.Load.Engine;

namespace Freight.Bench.Tests.Load;

/// <summary>
/// <see cref="LoadResult.FirstResponseSeconds"/>: the latency of the run's first response, the cold one.
/// /stall holds only its server's first request, so on one connection the first response is the slowest.
/// </summary>
public sealed class FirstResponseTests
{
    [Theory]
    [InlineData(LoadTransport.RawHttp11)]
    [InlineData(LoadTransport.HttpClient)]
    public async Task FirstResponseSeconds_FirstRequestStalled_IsThatRequestsLatency(LoadTransport transport)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/stall"),
            Transport = transport,
            MaxRequests = 5,
        });

        Assert.Equal(5, result.StatusCodes[200]);
        Assert.Equal(result.Latency.MaxSeconds, result.FirstResponseSeconds);
        Assert.True(result.FirstResponseSeconds >= LoadTestServer.StallDuration.TotalSeconds, $"first {result.FirstResponseSeconds} s");
    }

    [Fact]
    public async Task FirstResponseSeconds_ManyConnections_OneOfTheRecordedLatencies()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions { Target = server.Url("/ok"), Connections = 8, MaxRequests = 200 });

        Assert.NotNull(result.FirstResponseSeconds);
        Assert.InRange(result.FirstResponseSeconds.Value, result.Latency.MinSeconds, result.Latency.MaxSeconds);
    }

    [Fact]
    public async Task FirstResponseSeconds_NoResponse_Null()
    {
        var result = await LoadEngine.RunAsync(new LoadOptions { Target = RefusedPort.Url(), MaxRequests = 3 });

        Assert.Equal(3, result.SocketErrors);
        Assert.Null(result.FirstResponseSeconds);
    }
}
