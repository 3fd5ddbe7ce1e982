using System.Globalization;
using Freight.Server.Tests.Telemetry;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>
/// The sum of one of Freight's counters tagged with a listening port (<c>server.port</c>: <c>freight.sendfile.bytes</c>,
/// <c>freight.download.cut</c>) that the in-process server recorded for one listener, from the time this was made. The
/// port tells this fixture's server from the others, so its users need not run alone.
/// </summary>
internal sealed class PortMeter(string instrument, Uri listener) : IDisposable
{
    private readonly TelemetryRecorder _recorder = new();

    public long Sum => (long)_recorder.Sum(instrument, ("server.port", listener.Port.ToString(CultureInfo.InvariantCulture)));

    public void Dispose() => _recorder.Dispose();
}
