using System.Net.Http.Json;
using Freight.Lab.Metrics;

namespace Freight.Bench.Measure;

/// <summary>
/// Reads a server's cumulative counters: Freight's from <c>/lab/metrics</c>, a peer's (nginx) CPU and memory from
/// <c>/proc</c> (<see cref="ProcessStatSnapshot"/>); null when the target has none.
/// </summary>
public sealed class ServerMetrics
{
    private readonly HttpClient? _client;
    private readonly Uri? _baseAddress;
    private readonly int _processId;
    private bool _unavailable;

    public ServerMetrics(HttpClient client, Uri baseAddress)
    {
        _client = client;
        _baseAddress = baseAddress;
    }

    /// <summary>A peer without a counters endpoint: only its CPU seconds and resident memory are known.</summary>
    public ServerMetrics(int processId) => _processId = processId;

    public async Task<RuntimeSnapshot?> CaptureAsync(CancellationToken cancellationToken)
    {
        if (_unavailable)
        {
            return null;
        }

        if (_client is null)
        {
            return ProcessStatSnapshot.Capture(_processId) is { } peer ? PeerSnapshot(peer.CpuSeconds, peer.WorkingSetBytes) : null;
        }

        try
        {
            return await _client.GetFromJsonAsync<RuntimeSnapshot>(new Uri(_baseAddress!, "/lab/metrics"), cancellationToken);
        }
        catch (HttpRequestException)
        {
            _unavailable = true;
            return null;
        }
    }

    /// <summary>A peer's CPU time and memory in the shape of Freight's snapshots (the other counters are Freight's own).</summary>
    public static RuntimeSnapshot PeerSnapshot(double cpuSeconds, long workingSetBytes) =>
        new(cpuSeconds, 0, 0, 0, 0, 0, workingSetBytes, 0, 0, 0, 0, 0);
}
