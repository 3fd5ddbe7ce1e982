using Freight.Bench.Load.Engine;

namespace Freight.Bench.Tests.Load;

/// <summary>
/// One 2 s server stall on one connection. A closed loop waits it out politely and records a single
/// slow request; an open loop keeps scheduling, and every request scheduled during the stall carries
/// its wait in its latency — the stall shows up in the percentiles, as users would feel it.
/// </summary>
public sealed class CoordinatedOmissionTests
{
    private static readonly TimeSpan Run = TimeSpan.FromSeconds(3);

    [Fact]
    public async Task OpenLoop_ServerStalls_StallAppearsInHighPercentiles()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/stall"),
            RatePerSecond = 100,
            Connections = 1,
            Duration = Run,
        });

        // ~200 of ~300 requests were scheduled during the stall, waiting up to 2 s each.
        Assert.True(result.Latency.P99Seconds >= 1.0, $"p99 {result.Latency.P99Seconds:F3} s");
        Assert.True(result.Latency.P90Seconds >= 0.5, $"p90 {result.Latency.P90Seconds:F3} s");
        Assert.True(result.Latency.MaxSeconds >= 1.9, $"max {result.Latency.MaxSeconds:F3} s");
        Assert.Equal(0, result.Errors + result.SocketErrors + result.Timeouts + result.Dropped);
    }

    [Fact]
    public async Task ClosedLoop_ServerStalls_OnlyOneSlowRequestRecorded()
    {
        await using var server = await LoadTestServer.StartAsync();

        // Count-bounded, so the sample count does not depend on how fast a loaded machine serves the rest.
        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/stall"),
            Connections = 1,
            MaxRequests = 300,
        });

        // The stall is one sample among the 300 that follow one another: p99 does not see it.
        Assert.Equal(300, result.Responses);
        Assert.True(result.Latency.P99Seconds < 1.0, $"p99 {result.Latency.P99Seconds:F3} s");
        Assert.True(result.Latency.MaxSeconds >= 1.9, $"max {result.Latency.MaxSeconds:F3} s");

        // Exactly one slow request: the second slowest (rank count − 1) is already fast.
        var count = result.Histogram.Count;
        Assert.True(result.Histogram.ValueAtPercentile(100.0 * (count - 1) / count) < 1_000_000);
    }
}
