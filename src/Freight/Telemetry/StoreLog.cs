using Microsoft.Extensions.Logging;

namespace Freight.Telemetry;

/// <summary>The stores' log lines: what a store could not do that no request is answered about.</summary>
internal static partial class StoreLog
{
    /// <summary>
    /// One line, without the exception: its stack (some 40 lines of the AWS SDK's frames) says nothing the operator
    /// can act on, where the messages (connection refused, the name not resolved) say it all.
    /// </summary>
    public static void S3Unreachable(ILogger logger, Exception exception, string endpoint) => S3Unreachable(logger, endpoint, MessageChain(exception));

    [LoggerMessage(1, LogLevel.Warning, "The S3 store's server did not answer at start ({Endpoint}): {Reason}; requests answer 502 until it does.")]
    private static partial void S3Unreachable(ILogger logger, string endpoint, string reason);

    /// <summary>The messages of <paramref name="exception"/> and those it wraps, outermost first, each once: "A: B".</summary>
    internal static string MessageChain(Exception exception)
    {
        var messages = new List<string>();
        for (var current = exception; current is not null; current = current.InnerException)
        {
            if (!string.IsNullOrWhiteSpace(current.Message) && !messages.Any(seen => seen.Contains(current.Message, StringComparison.Ordinal)))
            {
                messages.Add(current.Message.TrimEnd('.'));
            }
        }

        return string.Join(": ", messages);
    }
}
