using Microsoft.Extensions.Logging;

namespace Freight.Telemetry;

/// <summary>The stores' log lines: what a store could not do that no request is answered about.</summary>
internal static partial class StoreLog
{
    [LoggerMessage(1, LogLevel.Warning, "The S3 store's server did not answer at start ({Endpoint}); requests answer 502 until it does.")]
    public static partial void S3Unreachable(ILogger logger, Exception exception, string endpoint);
}
