using System.Net.Sockets;
using Freight.Bench.Load.Engine;

namespace Freight.Bench.Tests.Load;

/// <summary>
/// What each socket error makes of a failed request, wrapped as SocketsHttpHandler wraps it: the failure's code and
/// words in the summary, the kind it is counted as, and whether the closed loop backs off (no connection was made).
/// </summary>
public sealed class SocketFailuresTests
{
    [Theory]
    [InlineData(SocketError.ConnectionRefused, "connection_refused", "connection refused", true, true)]
    [InlineData(SocketError.ConnectionReset, "connection_reset", "connection reset by the server", true, false)]
    [InlineData(SocketError.ConnectionAborted, "connection_aborted", "connection aborted", true, false)]
    [InlineData(SocketError.Shutdown, "connection_closed", "connection closed by the server while the request was sent", true, false)]
    [InlineData(SocketError.TimedOut, "connect_timed_out", "connecting timed out", false, true)]
    [InlineData(SocketError.HostNotFound, "host_not_found", "host not found", false, true)]
    [InlineData(SocketError.TryAgain, "host_not_found", "host not found", false, true)]
    [InlineData(SocketError.NoData, "host_not_found", "host not found", false, true)]
    [InlineData(SocketError.HostUnreachable, "host_unreachable", "host unreachable", false, true)]
    [InlineData(SocketError.NetworkUnreachable, "network_unreachable", "network unreachable", false, true)]
    [InlineData(SocketError.NetworkDown, "network_unreachable", "network unreachable", false, true)]
    [InlineData(SocketError.AddressNotAvailable, "no_local_port", "no local port free to connect from", false, true)]
    [InlineData(SocketError.TooManyOpenSockets, "too_many_open_files", "too many open files (see ulimit -n)", false, true)]
    public void SocketError_InAnHttpRequestException_SaysWhatHappenedCountsItAndBacksOffWhenNothingConnected(
        SocketError error, string code, string words, bool socketError, bool failedToConnect)
    {
        var exception = Wrapped(error);

        var failure = RequestFailures.Classify(exception, runEnding: false, timedOut: false);

        Assert.Equal(socketError ? RequestFailure.Socket : RequestFailure.Error, failure);
        Assert.Equal(new(code, words), FailureReasons.Describe(exception, failure));
        Assert.Equal(failedToConnect, RequestFailures.FailedToConnect(exception));
    }

    [Fact]
    public void SocketError_NoneOfTheNamedOnes_AnErrorInTheSocketsOwnWords()
    {
        var exception = Wrapped(SocketError.AccessDenied);
        var message = new SocketException((int)SocketError.AccessDenied).Message.TrimEnd('.');

        var failure = RequestFailures.Classify(exception, runEnding: false, timedOut: false);

        Assert.Equal(RequestFailure.Error, failure);
        var reason = FailureReasons.Describe(exception, failure);
        Assert.Equal("socket_error", reason.Code);
        Assert.Equal("socket error: " + message, reason.Message, ignoreCase: true);
        Assert.False(RequestFailures.FailedToConnect(exception));
    }

    [Fact]
    public void SocketError_UnderAnHttpRequestError_TheSocketsWordsWin()
    {
        var exception = new HttpRequestException(HttpRequestError.ConnectionError, "Connection refused (127.0.0.1:1)", new SocketException((int)SocketError.ConnectionRefused));

        var failure = RequestFailures.Classify(exception, runEnding: false, timedOut: false);

        Assert.Equal(RequestFailure.Socket, failure);
        Assert.Equal(new("connection_refused", "connection refused"), FailureReasons.Describe(exception, failure));
        Assert.True(RequestFailures.FailedToConnect(exception));
    }

    private static HttpRequestException Wrapped(SocketError error) =>
        new("An error occurred while sending the request.", new IOException("Unable to read data from the transport connection.", new SocketException((int)error)));
}
