using System.Net;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>
/// <c>/lab/metrics</c> and <c>/lab/metrics/samples</c> report what the server did: allocations, exceptions, and the
/// counters behind the crank-style rows. The test server runs in the test process, so other tests' work adds to
/// the counters: every assertion is a lower bound the request under test guarantees on its own.
/// </summary>
public sealed class RuntimeCountersTests(LabServer server) : IClassFixture<LabServer>
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(15);

    private static readonly string[] NewCounters =
    [
        "exceptionCount", "completedWorkItems", "gen0SizeBytes", "gen1SizeBytes", "gen2SizeBytes", "lohSizeBytes", "pohSizeBytes",
    ];

    [Fact]
    public async Task Metrics_AfterAnEndpointAllocates_ReportsAtLeastItsAllocation()
    {
        // The first request for a size makes the in-memory variants generate that payload: one new byte[] of it.
        // This size is this test's own, and the fixture's server is this class's own, so nothing made it before.
        const int Size = 3 * Payloads.MiB + 7;
        var before = await GetMetricsAsync();

        var (bytes, hash) = await DownloadAsync($"/lab/download/stream-default?size={Size}");
        var after = await GetMetricsAsync();

        Assert.Equal(Size, bytes);
        Assert.Equal(Payloads.Hash(Size), hash);
        var allocated = after.GetProperty("allocatedBytes").GetInt64() - before.GetProperty("allocatedBytes").GetInt64();
        Assert.True(allocated >= Size, $"allocated {allocated} bytes, expected at least {Size}");
    }

    [Fact]
    public async Task Samples_AfterAnEndpointAllocates_ReportAtLeastItsAllocation()
    {
        const int Size = 3 * Payloads.MiB + 11;
        var before = (await GetMetricsAsync()).GetProperty("allocatedBytes").GetInt64();
        var lastSequence = (await GetSamplesAsync("")).Select(Sequence).DefaultIfEmpty(0).Max();

        var (bytes, _) = await DownloadAsync($"/lab/download/stream-default?size={Size}");
        var finished = DateTimeOffset.UtcNow;
        var sample = await WaitForSampleAfterAsync(lastSequence, finished);

        Assert.Equal(Size, bytes);
        var allocated = sample.GetProperty("allocatedBytes").GetInt64() - before;
        Assert.True(allocated >= Size, $"allocated {allocated} bytes, expected at least {Size}");
    }

    [Fact]
    public async Task Metrics_AfterARequestTheServerRefuses_CountsItsException()
    {
        var before = (await GetMetricsAsync()).GetProperty("exceptionCount").GetInt64();

        // The lab refuses a bad parameter by throwing LabRequest.Invalid (a ProblemException), answered as a problem.
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/lab/threads/delay?ms=soon"));
        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        var after = (await GetMetricsAsync()).GetProperty("exceptionCount").GetInt64();

        Assert.True(before >= 0);
        Assert.True(after >= before + 1, $"exceptions: {before} then {after}");
    }

    [Fact]
    public async Task Metrics_Always_ServesTheCrankCounters()
    {
        var metrics = await GetMetricsAsync();

        foreach (var counter in NewCounters)
        {
            Assert.True(metrics.GetProperty(counter).GetInt64() >= 0, counter);
        }

        Assert.True(metrics.GetProperty("completedWorkItems").GetInt64() > 0);
    }

    [Fact]
    public async Task Samples_Always_ServeTheCrankCounters()
    {
        var sample = await WaitForSampleAfterAsync(0, DateTimeOffset.MinValue);

        foreach (var counter in NewCounters.Where(name => name != "completedWorkItems").Append("threadPoolCompletedWorkItems"))
        {
            Assert.True(sample.GetProperty(counter).GetInt64() >= 0, counter);
        }
    }

    private static long Sequence(JsonElement sample) => sample.GetProperty("sequence").GetInt64();

    private async Task<(long Bytes, string Hash)> DownloadAsync(string pathAndQuery)
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, pathAndQuery), HttpCompletionOption.ResponseHeadersRead);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        await using var body = await response.Content.ReadAsStreamAsync();
        return await Payloads.HashAsync(body);
    }

    private async Task<JsonElement> GetMetricsAsync()
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/lab/metrics"));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return body.RootElement.Clone();
    }

    private async Task<List<JsonElement>> GetSamplesAsync(string query)
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/lab/metrics/samples" + query));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return body.RootElement.EnumerateArray().Select(sample => sample.Clone()).ToList();
    }

    // The first sample after `sequence` taken at or after `notBefore` (the sampler takes one a second); bounded wait.
    private async Task<JsonElement> WaitForSampleAfterAsync(long sequence, DateTimeOffset notBefore)
    {
        var deadline = DateTime.UtcNow + Patience;
        while (true)
        {
            foreach (var sample in await GetSamplesAsync($"?after={sequence}"))
            {
                if (sample.GetProperty("timestamp").GetDateTimeOffset() >= notBefore)
                {
                    return sample;
                }
            }

            Assert.True(DateTime.UtcNow < deadline, $"no sample taken after {notBefore:O} within {Patience}");
            await Task.Delay(200);
        }
    }
}
