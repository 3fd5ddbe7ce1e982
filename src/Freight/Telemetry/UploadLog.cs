using Microsoft.Extensions.Logging;

namespace Freight.Telemetry;

/// <summary>The uploads' log lines (category <c>Freight.Telemetry.UploadTelemetry</c>); refusals are the problem middleware's.</summary>
internal static partial class UploadLog
{
    [LoggerMessage(1, LogLevel.Debug, "{Protocol} upload of {Key}: stored {Bytes} bytes")]
    public static partial void Completed(ILogger logger, string protocol, string key, long bytes);

    [LoggerMessage(2, LogLevel.Debug, "{Protocol} upload of {Key}: aborted")]
    public static partial void Aborted(ILogger logger, string protocol, string key);
}
