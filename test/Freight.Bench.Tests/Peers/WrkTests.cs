using Freight.Bench.Peers;
using Freight.Bench.Tests.Load;

namespace Freight.Bench.Tests.Peers;

/// <summary>
/// The real wrk against a real local Kestrel. These tests fail, never skip, when wrk is missing:
/// <c>./test.sh</c> installs it (scripts/install-peers.sh) on a fresh machine, and a bench machine without
/// it would silently lose its peer rows.
/// </summary>
public sealed class WrkTests
{
    internal const string Missing = "wrk is not installed: run scripts/install-peers.sh as root (./test.sh does).";

    [Fact]
    public async Task RunAsync_LocalServer_PositiveRateAndPercentiles()
    {
        Assert.True(Wrk.IsInstalled, Missing);
        await using var server = await LoadTestServer.StartAsync();

        var result = await Wrk.RunAsync(server.Url("/ok"), 4, TimeSpan.FromSeconds(1), CancellationToken.None);

        Assert.NotNull(result);
        Assert.Equal(4, result.Connections);
        Assert.True(result.Requests > 0);
        Assert.True(result.RequestsPerSecond > 0);
        Assert.True(result.TransferBytesPerSecond > 0);
        Assert.True(result.Latency.P50 > 0);
        Assert.True(result.Latency.P50 <= result.Latency.P99 && result.Latency.P99 <= result.Latency.Max);
        Assert.Equal(0, result.Non2xxResponses + result.SocketErrors + result.Timeouts);
        // wrk's own CPU, from the shell it ran under: reported, and no more than its one thread could spend in the run
        // (10 ms ticks: a light run may read 0).
        Assert.InRange(result.CpuSeconds!.Value, 0, 1.5 * result.DurationSeconds);
    }

    [Fact]
    public async Task RunAsync_NotFound_EveryResponseNon2xx()
    {
        Assert.True(Wrk.IsInstalled, Missing);
        await using var server = await LoadTestServer.StartAsync();

        var result = await Wrk.RunAsync(server.Url("/status/404"), 2, TimeSpan.FromSeconds(1), CancellationToken.None);

        Assert.NotNull(result);
        Assert.True(result.Requests > 0);
        Assert.Equal(result.Requests, result.Non2xxResponses);
        Assert.InRange(result.CpuSeconds!.Value, 0, 1.5 * result.DurationSeconds);
    }

    [Fact]
    public async Task RunAsync_RefusedPort_ThrowsWithWrksMessage()
    {
        Assert.True(Wrk.IsInstalled, Missing);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => Wrk.RunAsync(RefusedPort.Url(), 2, TimeSpan.FromSeconds(1), CancellationToken.None));

        Assert.Contains("unable to connect", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task MeasureAsync_LocalServer_ReturnsTheRate()
    {
        Assert.True(Wrk.IsInstalled, Missing);
        await using var server = await LoadTestServer.StartAsync();

        var rate = await Wrk.MeasureAsync(server.Url("/ok"), 2, TimeSpan.FromSeconds(1), CancellationToken.None);

        Assert.True(rate > 0, $"rate {rate}");
    }
}
