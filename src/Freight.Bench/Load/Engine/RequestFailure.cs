using System.Net.Sockets;

namespace Freight.Bench.Load.Engine;

/// <summary>How a request that got no complete response ended.</summary>
internal enum RequestFailure
{
    Error,
    Socket,
    Timeout,
    CancelledAtEnd,

    /// <summary>The response ended before its Content-Length (or its last chunk): the server closed early.</summary>
    Length,
}

internal static class RequestFailures
{
    /// <summary>
    /// The rule: once the run is ending, whatever a request threw is "cancelled at end"; otherwise its own
    /// timeout firing makes it a timeout; a <see cref="SocketException"/> anywhere in the chain (refused,
    /// reset, aborted; SocketsHttpHandler wraps it in HttpRequestException or IOException) a socket error;
    /// a response that ended before its framing said (<see cref="HttpRequestError.ResponseEnded"/>, from
    /// HttpClient or the raw transport) a length failure, or a socket failure when no response had begun;
    /// anything else an error.
    /// </summary>
    public static RequestFailure Classify(Exception exception, bool runEnding, bool timedOut, bool responseStarted = true)
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

        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            if (inner is HttpIOException { HttpRequestError: HttpRequestError.ResponseEnded })
            {
                // Before the status line, the server closed the connection instead of answering: a connection failure.
                return responseStarted ? RequestFailure.Length : RequestFailure.Socket;
            }
        }

        return RequestFailure.Error;
    }
}
