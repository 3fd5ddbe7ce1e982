using System.Net;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Threads;

/// <summary>
/// <c>/lab/metrics/samples</c> serves the server's runtime sampler: numbered samples, oldest first, filtered by
/// <c>?after=</c>. The sampler takes one a second, so the first test waits (bounded) for two of them.
/// </summary>
public sealed class MetricsSamplesTests(LabServer server) : IClassFixture<LabServer>
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task Samples_AfterTwoPeriods_AreNumberedInOrderWithEveryCounter()
    {
        var samples = await WaitForSamplesAsync(2);

        for (var i = 1; i < samples.Count; i++)
        {
            Assert.Equal(Sequence(samples[i - 1]) + 1, Sequence(samples[i]));
            Assert.True(samples[i].GetProperty("timestamp").GetDateTimeOffset() >= samples[i - 1].GetProperty("timestamp").GetDateTimeOffset());
            Assert.True(samples[i].GetProperty("elapsedSeconds").GetDouble() > samples[i - 1].GetProperty("elapsedSeconds").GetDouble());
        }

        var last = samples[^1];
        Assert.True(last.GetProperty("threadPoolThreads").GetInt32() > 0);
        Assert.True(last.GetProperty("workingSetBytes").GetInt64() > 0);
        Assert.True(last.GetProperty("cpuSeconds").GetDouble() > 0);
        Assert.InRange(last.GetProperty("cpuPercent").GetDouble(), 0, 100.0 * Environment.ProcessorCount);
        foreach (var counter in new[]
        {
            "threadPoolQueueLength", "threadPoolCompletedWorkItems", "processThreads", "gcHeapBytes", "gen0Collections",
            "gen1Collections", "gen2Collections", "lockContentions", "allocatedBytes", "diskWriteBytes",
        })
        {
            Assert.True(last.TryGetProperty(counter, out _), counter);
        }
    }

    [Fact]
    public async Task Samples_After_ReturnsOnlyNewerSamples()
    {
        var all = await WaitForSamplesAsync(2);
        var after = Sequence(all[^2]);

        var newer = await GetSamplesAsync($"?after={after}");

        Assert.NotEmpty(newer);
        Assert.All(newer, sample => Assert.True(Sequence(sample) > after));
        Assert.Equal(after + 1, Sequence(newer[0]));
        Assert.Empty(await GetSamplesAsync($"?after={long.MaxValue}"));
    }

    [Theory]
    [InlineData("abc")]
    [InlineData("-1")]
    public async Task Samples_BadAfter_IsAProblem400(string after)
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, $"/lab/metrics/samples?after={after}"));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
    }

    private static long Sequence(JsonElement sample) => sample.GetProperty("sequence").GetInt64();

    // Polls until the server holds at least `count` samples; bounded, and asserts nothing about timing.
    private async Task<List<JsonElement>> WaitForSamplesAsync(int count)
    {
        var deadline = DateTime.UtcNow + Patience;
        while (true)
        {
            var samples = await GetSamplesAsync("");
            if (samples.Count >= count)
            {
                return samples;
            }

            Assert.True(DateTime.UtcNow < deadline, $"only {samples.Count} samples within {Patience}");
            await Task.Delay(200);
        }
    }

    private async Task<List<JsonElement>> GetSamplesAsync(string query)
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/lab/metrics/samples" + query));
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(JsonValueKind.Array, body.RootElement.ValueKind);
        return body.RootElement.EnumerateArray().Select(sample => sample.Clone()).ToList();
    }
}
