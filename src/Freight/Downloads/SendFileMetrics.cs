using System.Diagnostics.Metrics;

namespace Freight.Downloads;

/// <summary>
/// What sendfile(2) sent: meter <c>Freight.Downloads</c>, counter <c>freight.sendfile.bytes</c>, one measurement
/// per file body or part (not per chunk), tagged with the listening port (<c>server.port</c>) so that one listener
/// of several can be told apart. Zero on a path that copies (HTTPS, HTTP/2, small bodies, Freight:SendFile off).
/// </summary>
public static class SendFileMetrics
{
    /// <summary>The meter's name, for a MeterListener or <c>dotnet-counters --counters</c>.</summary>
    public const string MeterName = "Freight.Downloads";

    /// <summary>The counter of bytes sent with sendfile(2).</summary>
    public const string BytesCounterName = "freight.sendfile.bytes";

    private static readonly Meter s_meter = new(MeterName);

    private static readonly Counter<long> s_bytes = s_meter.CreateCounter<long>(BytesCounterName, "By", "Bytes of response bodies sent with sendfile(2).");

    internal static void Sent(long bytes, int port)
    {
        if (s_bytes.Enabled)
        {
            s_bytes.Add(bytes, new KeyValuePair<string, object?>("server.port", port));
        }
    }
}
