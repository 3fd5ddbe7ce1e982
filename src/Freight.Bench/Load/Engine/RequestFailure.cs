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
    /// timeout firing makes it a timeout; a <see cref="SocketException"/> anywhere in the chain that says the server
    /// refused, reset or dropped the connection (<see cref="SocketFailure.Dropped"/>; SocketsHttpHandler wraps it in
    /// HttpRequestException or IOException) a socket error, and any other (host not found or unreachable, no local
    /// port, too many open files) an error: no server was there to refuse;
    /// a response that ended before its framing said (<see cref="HttpRequestError.ResponseEnded"/>, from
    /// HttpClient or the raw transport) a length failure, or a socket failure when no response had begun (an
    /// <see cref="HttpRequestException"/> saying so, or any before <paramref name="responseStarted"/>);
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

        if (SocketFailure.Find(exception) is { } socket)
        {
            return SocketFailure.Of(socket.SocketErrorCode).Dropped ? RequestFailure.Socket : RequestFailure.Error;
        }

        // SendAsync's own exception, HttpClient's or the raw transport's: the server closed before the response began,
        // or part-way through its head (no status and headers to count as a response).
        if (exception is HttpRequestException { HttpRequestError: HttpRequestError.ResponseEnded })
        {
            return RequestFailure.Socket;
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

    /// <summary>
    /// Whether the request failed before a connection was made: refused, no such host, unreachable, no local port or
    /// descriptor, connecting timed out. A closed-loop worker backs off after one (<see cref="ClosedLoopDriver"/>).
    /// </summary>
    public static bool FailedToConnect(Exception exception)
    {
        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            if (inner is SocketException socket)
            {
                return SocketFailure.Of(socket.SocketErrorCode).FailedToConnect;
            }

            if (inner is HttpRequestException { HttpRequestError: HttpRequestError.NameResolutionError or HttpRequestError.ConnectionError })
            {
                return true;
            }
        }

        return false;
    }
}
