using System.Diagnostics.Metrics;
using Freight.Telemetry;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>The bytes the in-process server sent with sendfile(2) on one listener (its port), from the time this was made.</summary>
internal sealed class SendFileMeter : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly int _port;
    private long _bytes;

    public SendFileMeter(Uri listener)
    {
        _port = listener.Port;
        _listener.InstrumentPublished = (instrument, meterListener) =>
        {
            if (instrument.Meter.Name == FreightTelemetry.Name && instrument.Name == "freight.sendfile.bytes")
            {
                meterListener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag.Key == "server.port" && tag.Value is int port && port == _port)
                {
                    Interlocked.Add(ref _bytes, value);
                }
            }
        });
        _listener.Start();
    }

    public long Bytes => Interlocked.Read(ref _bytes);

    public void Dispose() => _listener.Dispose();
}
