using System.Net.Sockets;
using Freight.Bench.Results;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// What a socket error means to a load, from the one table of the codes it tells apart: the words the summary gives
/// it (<see cref="FailureReasons"/>), whether the request counts as a socket error or as an error
/// (<see cref="RequestFailures.Classify"/>), and whether no connection was made (<see cref="RequestFailures.FailedToConnect"/>).
/// </summary>
/// <param name="Reason">The summary's code and words; null for a code the table does not name (the exception's own message says it).</param>
/// <param name="Dropped">
/// The server refused, reset or dropped the connection, or closed it while the request was sent (EPIPE): what the
/// docs' <c>reset</c> kind counts. Any other (host not found or unreachable, no local port, too many open files) is
/// an error: no server was there to refuse.
/// </param>
/// <param name="FailedToConnect">No connection was made: a closed-loop worker backs off (<see cref="ClosedLoopDriver"/>).</param>
internal sealed record SocketFailure(FailureReason? Reason, bool Dropped, bool FailedToConnect)
{
    private static readonly SocketFailure Refused = new(new("connection_refused", "connection refused"), Dropped: true, FailedToConnect: true);
    private static readonly SocketFailure Reset = new(new("connection_reset", "connection reset by the server"), Dropped: true, FailedToConnect: false);
    private static readonly SocketFailure Aborted = new(new("connection_aborted", "connection aborted"), Dropped: true, FailedToConnect: false);

    // EPIPE: the server closed while the request was still being sent (an early answer to a body it refuses).
    private static readonly SocketFailure ClosedWhileSending = new(new("connection_closed", "connection closed by the server while the request was sent"), Dropped: true, FailedToConnect: false);
    private static readonly SocketFailure ConnectTimedOut = new(new("connect_timed_out", "connecting timed out"), Dropped: false, FailedToConnect: true);
    private static readonly SocketFailure HostNotFound = new(new("host_not_found", "host not found"), Dropped: false, FailedToConnect: true);
    private static readonly SocketFailure HostUnreachable = new(new("host_unreachable", "host unreachable"), Dropped: false, FailedToConnect: true);
    private static readonly SocketFailure NetworkUnreachable = new(new("network_unreachable", "network unreachable"), Dropped: false, FailedToConnect: true);

    // EADDRNOTAVAIL when connecting: every ephemeral port to that address is in use (or in TIME_WAIT).
    private static readonly SocketFailure NoLocalPort = new(new("no_local_port", "no local port free to connect from"), Dropped: false, FailedToConnect: true);
    private static readonly SocketFailure TooManyOpenFiles = new(new("too_many_open_files", "too many open files (see ulimit -n)"), Dropped: false, FailedToConnect: true);
    private static readonly SocketFailure Other = new(null, Dropped: false, FailedToConnect: false);

    /// <summary>What <paramref name="error"/> means; every code the table does not name means the same (no words, an error).</summary>
    public static SocketFailure Of(SocketError error) => error switch
    {
        SocketError.ConnectionRefused => Refused,
        SocketError.ConnectionReset => Reset,
        SocketError.ConnectionAborted => Aborted,
        SocketError.Shutdown => ClosedWhileSending,
        SocketError.TimedOut => ConnectTimedOut,
        SocketError.HostNotFound or SocketError.TryAgain or SocketError.NoData => HostNotFound,
        SocketError.HostUnreachable => HostUnreachable,
        SocketError.NetworkUnreachable or SocketError.NetworkDown => NetworkUnreachable,
        SocketError.AddressNotAvailable => NoLocalPort,
        SocketError.TooManyOpenSockets => TooManyOpenFiles,
        _ => Other,
    };

    /// <summary>
    /// The outermost <see cref="SocketException"/> in <paramref name="exception"/>'s chain (SocketsHttpHandler wraps it in
    /// HttpRequestException or IOException), which decides the failure; null when there is none.
    /// </summary>
    public static SocketException? Find(Exception exception)
    {
        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            if (inner is SocketException socket)
            {
                return socket;
            }
        }

        return null;
    }
}
