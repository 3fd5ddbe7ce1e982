using System.Collections.Concurrent;
using System.Net;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// The open loop's raw connections: at most <c>limit</c>, each used by one request at a time; a request
/// that finds them all busy waits for one (the wait is part of its latency, as with HttpClient's pool).
/// Connections are created lazily and kept for the run.
/// </summary>
internal sealed class RawHttp11ConnectionPool : IDisposable
{
    private readonly SemaphoreSlim _gate;
    private readonly ConcurrentQueue<RawHttp11Connection> _idle = new();
    private readonly EndPoint _endPoint;
    private readonly RawHttp11Request _request;
    private readonly ResponseExpectation? _expectation;

    public RawHttp11ConnectionPool(int limit, EndPoint endPoint, RawHttp11Request request, ResponseExpectation? expectation = null)
    {
        _gate = new SemaphoreSlim(limit, limit);
        _endPoint = endPoint;
        _request = request;
        _expectation = expectation;
    }

    /// <summary>Waits for a free connection; cancelled by <paramref name="token"/> (timeout or run end) while waiting.</summary>
    public async ValueTask<RawHttp11Connection> RentAsync(CancellationToken token)
    {
        await _gate.WaitAsync(token);
        return _idle.TryDequeue(out var connection) ? connection : new RawHttp11Connection(_endPoint, _request, _expectation);
    }

    public void Return(RawHttp11Connection connection)
    {
        _idle.Enqueue(connection);
        _gate.Release();
    }

    public void Dispose()
    {
        while (_idle.TryDequeue(out var connection))
        {
            connection.Dispose();
        }

        _gate.Dispose();
    }
}
