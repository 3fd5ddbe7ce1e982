using System.Net.Http.Json;
using Freight.Lab.Metrics;

namespace Freight.Bench.Measure;

/// <summary>Reads the server's cumulative counters from <c>/lab/metrics</c>; null when the target has none.</summary>
public sealed class ServerMetrics(HttpClient client, Uri baseAddress)
{
    private bool _unavailable;

    public async Task<RuntimeSnapshot?> CaptureAsync(CancellationToken cancellationToken)
    {
        if (_unavailable)
        {
            return null;
        }

        try
        {
            return await client.GetFromJsonAsync<RuntimeSnapshot>(new Uri(baseAddress, "/lab/metrics"), cancellationToken);
        }
        catch (HttpRequestException)
        {
            _unavailable = true;
            return null;
        }
    }
}
