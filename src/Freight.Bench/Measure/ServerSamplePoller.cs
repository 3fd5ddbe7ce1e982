using System.Net.Http.Json;

using Freight.Lab.Metrics;

namespace Freight.Bench.Measure;

/// <summary>
/// Collects the server's once-a-second samples during a load run. The server samples on its own thread
/// and keeps them, so a poll answered late (a starved thread pool answers everything late) loses none:
/// each poll asks for the samples after the last one seen.
/// </summary>
public sealed class ServerSamplePoller(Uri server)
{
    private readonly SortedDictionary<long, RuntimeSample> _samples = [];

    public IReadOnlyCollection<RuntimeSample> Samples => _samples.Values;

    /// <summary>Polls about once a second until <paramref name="stop"/> is cancelled.</summary>
    public async Task PollAsync(CancellationToken stop)
    {
        // A starved server may take many seconds to answer: one poll at a time, each with a generous timeout.
        using var client = new HttpClient { Timeout = TimeSpan.FromSeconds(60) };
        while (!stop.IsCancellationRequested)
        {
            await FetchAsync(client, stop);
            try
            {
                await Task.Delay(TimeSpan.FromSeconds(1), stop);
            }
            catch (OperationCanceledException)
            {
                break;
            }
        }
    }

    /// <summary>One last fetch after the run: whatever the server sampled since the last poll.</summary>
    public async Task FetchRemainingAsync(CancellationToken cancellationToken)
    {
        using var client = new HttpClient { Timeout = TimeSpan.FromSeconds(60) };
        await FetchAsync(client, cancellationToken);
    }

    private async Task FetchAsync(HttpClient client, CancellationToken cancellationToken)
    {
        var after = _samples.Count == 0 ? 0 : _samples.Keys.Max();
        try
        {
            var samples = await client.GetFromJsonAsync<List<RuntimeSample>>(new Uri(server, $"/lab/metrics/samples?after={after}"), cancellationToken);
            foreach (var sample in samples ?? [])
            {
                _samples[sample.Sequence] = sample;
            }
        }
        catch (Exception failure) when (failure is HttpRequestException or TaskCanceledException or System.Text.Json.JsonException)
        {
            // Missed polls are made up by the next one; the samples stay on the server.
        }
    }
}
