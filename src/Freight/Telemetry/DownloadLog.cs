using Microsoft.Extensions.Logging;

namespace Freight.Telemetry;

/// <summary>The downloads' log lines (category <c>Freight.Downloads</c>).</summary>
internal static partial class DownloadLog
{
    // Information, as for a client that went away: the client's doing, not a fault of the server's.
    [LoggerMessage(1, LogLevel.Information, "Request {RequestId}: download cut, the client read under the minimum response data rate ({BytesPerSecond} B/s) for {GraceSeconds} s")]
    public static partial void SlowReaderCut(ILogger logger, string requestId, double bytesPerSecond, double graceSeconds);
}
