using System.Diagnostics.Metrics;
using Freight.Telemetry;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>
/// The sum of one of Freight's counters tagged with a listening port (<c>server.port</c>: <c>freight.sendfile.bytes</c>,
/// <c>freight.download.cut</c>) that the in-process server recorded for one listener, from the time this was made.
/// </summary>
internal sealed class PortMeter : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly int _port;
    private long _sum;

    public PortMeter(string instrument, Uri listener)
    {
        _port = listener.Port;
        _listener.InstrumentPublished = (published, meterListener) =>
        {
            if (published.Meter.Name == FreightTelemetry.Name && published.Name == instrument)
            {
                meterListener.EnableMeasurementEvents(published);
            }
        };
        _listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag.Key == "server.port" && tag.Value is int port && port == _port)
                {
                    Interlocked.Add(ref _sum, value);
                }
            }
        });
        _listener.Start();
    }

    public long Sum => Interlocked.Read(ref _sum);

    public void Dispose() => _listener.Dispose();
}
