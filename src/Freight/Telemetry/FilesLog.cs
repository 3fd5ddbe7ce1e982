using Microsoft.Extensions.Logging;

namespace Freight.Telemetry;

/// <summary>The files API's log lines (its refusals are the problem middleware's).</summary>
internal static partial class FilesLog
{
    [LoggerMessage(1, LogLevel.Warning, "{Key}: the {Algorithm} digest computed for Want-Repr-Digest was sent but not kept, the storage is full: {Reason}")]
    public static partial void DigestNotKept(ILogger logger, string key, string algorithm, string reason);
}
