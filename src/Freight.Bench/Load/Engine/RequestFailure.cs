using System.Net.Sockets;

namespace Freight.Bench.Load.Engine;

/// <summary>How a request that got no complete response ended.</summary>
internal enum RequestFailure
{
    Error,
    Socket,
    Timeout,
    CancelledAtEnd,
}

internal static class RequestFailures
{
    /// <summary>
    /// The rule: once the run is ending, whatever a request threw is "cancelled at end"; otherwise its own
    /// timeout firing makes it a timeout; a <see cref="SocketException"/> anywhere in the chain (refused,
    /// reset, aborted; SocketsHttpHandler wraps it in HttpRequestException or IOException) a socket error;
    /// anything else an error.
    /// </summary>
    public static RequestFailure Classify(Exception exception, bool runEnding, bool timedOut)
    {
        if (runEnding)
        {
            return RequestFailure.CancelledAtEnd;
        }

        if (timedOut)
        {
            return RequestFailure.Timeout;
        }

        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            if (inner is SocketException)
            {
                return RequestFailure.Socket;
            }
        }

        return RequestFailure.Error;
    }
}
