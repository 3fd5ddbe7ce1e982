using Microsoft.Extensions.Logging;

namespace Freight.Telemetry;

/// <summary>The tus uploads' log lines (the expiry sweep's, and a restart's recovery).</summary>
internal static partial class TusLog
{
    [LoggerMessage(1, LogLevel.Information, "tus: upload {Id} expired with {Offset} bytes; removed")]
    public static partial void Expired(ILogger logger, string id, long offset);

    [LoggerMessage(2, LogLevel.Warning, "tus: expiry sweep failed: {Reason}")]
    public static partial void SweepFailed(ILogger logger, string reason);

    [LoggerMessage(3, LogLevel.Information, "tus: finished {Count} upload(s) a restart interrupted while becoming files")]
    public static partial void Recovered(ILogger logger, int count);

    [LoggerMessage(4, LogLevel.Information, "tus: removed {Count} multipart upload(s) or staged object(s) that stopped nodes left in the bucket")]
    public static partial void Abandoned(ILogger logger, int count);
}
