using System.Globalization;
using System.Security.Authentication;
using Freight.Bench.Results;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// Puts why a request failed into words a user understands ("connection refused", "TLS handshake failed: …",
/// "status 401, expected 200") with a stable code beside them: a request that threw, or a response that was not the
/// one expected. For an exception, its type names what .NET threw, not what happened: the chain is read
/// for the socket error, the TLS failure or HttpClient's <see cref="HttpRequestError"/>, and anything else keeps its
/// innermost message, which says the most.
/// </summary>
internal static class FailureReasons
{
    // 413 Content Too Large (RFC 9110 §15.5.14): most often a framework's default limit, which a user's app did not set.
    private const string UntrustedHint = "; -k skips the check, or --pin-sha256 HEX trusts the one certificate with that SHA-256";

    private const string BodyLimitHint = " (over a request body limit? Kestrel's MaxRequestBodySize is 30,000,000 bytes by default)";

    public static FailureReason Describe(Exception exception, RequestFailure failure)
    {
        ArgumentNullException.ThrowIfNull(exception);
        if (failure == RequestFailure.Timeout)
        {
            return new("timed_out", "timed out");
        }

        if (SocketFailure.Find(exception) is { } socket)
        {
            return SocketFailure.Of(socket.SocketErrorCode).Reason ?? new("socket_error", $"socket error: {Sentence(socket.Message)}");
        }

        var innermost = exception;
        while (innermost.InnerException is { } next)
        {
            innermost = next;
        }

        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            if (inner is AuthenticationException tls)
            {
                return Tls(tls.Message);
            }
        }

        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            var error = inner switch
            {
                HttpRequestException request => request.HttpRequestError,
                HttpIOException io => io.HttpRequestError,
                _ => HttpRequestError.Unknown,
            };
            if (error != HttpRequestError.Unknown)
            {
                // HttpProtocolException's message ends in its error's name, "… (0xd). (HttpProtocolError)": said already.
                return OfHttp(error, failure, Sentence(innermost.Message.Replace($" ({error})", "", StringComparison.Ordinal)));
            }

            if (inner is InvalidDataException malformed)
            {
                // The raw HTTP/1.1 transport's parser: a response that is not HTTP.
                return new("invalid_response", $"invalid response: {Sentence(malformed.Message)}");
            }
        }

        return new("error", Sentence(innermost.Message));
    }

    /// <summary>A complete response with another status than <c>--expect-status</c>.</summary>
    public static FailureReason UnexpectedStatus(int status, int expected) =>
        new("unexpected_status", string.Create(CultureInfo.InvariantCulture, $"status {status}, expected {expected}{(status == 413 ? BodyLimitHint : "")}"));

    /// <summary>A body whose hash is not the one expected: <paramref name="expectedBy"/> says who expected it ("expected", "its Repr-Digest says").</summary>
    public static FailureReason DigestMismatch(string algorithm, ReadOnlySpan<byte> actual, string expectedBy, ReadOnlySpan<byte> expected) =>
        new("digest_mismatch", $"body {algorithm} {Abbreviated(actual)}, {expectedBy} {Abbreviated(expected)}");

    /// <summary>A body that differs from the expected bytes (the bench's own payloads, compared byte by byte).</summary>
    public static FailureReason BodyMismatch { get; } = new("body_mismatch", "body differs from the expected bytes");

    /// <summary>A body that ran past its Content-Length (one cut short is an exception, a <see cref="RequestFailure.Length"/>).</summary>
    public static FailureReason LengthMismatch { get; } = new("length_mismatch", "body longer than its Content-Length");

    // 12 hex digits tell two digests apart at a glance; the whole 64 would fill the summary's line.
    private static string Abbreviated(ReadOnlySpan<byte> digest) => Convert.ToHexStringLower(digest[..Math.Min(6, digest.Length)]) + "…";

    private static FailureReason OfHttp(HttpRequestError error, RequestFailure failure, string innermost) => error switch
    {
        HttpRequestError.ResponseEnded => failure == RequestFailure.Length
            ? new("response_ended", "the server closed the connection before the response ended")
            : new("connection_closed", "the server closed the connection before answering"),
        HttpRequestError.NameResolutionError => new("host_not_found", "host not found"),
        HttpRequestError.SecureConnectionError => Tls(innermost),
        HttpRequestError.ConnectionError => new("connection_failed", $"could not connect: {innermost}"),
        HttpRequestError.HttpProtocolError => new("protocol_error", $"HTTP protocol error: {innermost}"),
        HttpRequestError.VersionNegotiationError => new("version_negotiation", "the server does not speak the HTTP version asked for"),
        HttpRequestError.InvalidResponse => new("invalid_response", $"invalid response: {innermost}"),
        HttpRequestError.ConfigurationLimitExceeded => new("response_too_large", $"the response exceeds a client limit: {innermost}"),
        _ => new("error", innermost),
    };

    private static FailureReason Tls(string message) => new("tls_failed", "TLS handshake failed: " + (
        // .NET's wording names its callback; the only one a load installs checks the certificate against a pin.
        message.Contains("RemoteCertificateValidationCallback", StringComparison.Ordinal)
            ? "the server's certificate is not the one pinned"

            // SslStream read a record that is no TLS: a plain HTTP server's answer (its 400) to the ClientHello.
            : message.Contains("frame size or a corrupted frame", StringComparison.Ordinal)
            ? "the server answered in cleartext: use http://"

            // Not trusted here (UntrustedRoot: a self-signed or development certificate), or not for this host.
            : message.Contains("remote certificate is invalid", StringComparison.Ordinal)
            ? Sentence(message) + UntrustedHint
            : Sentence(message)));

    /// <summary>A .NET message as the tail of a line: "Connection refused." → "connection refused" (an acronym's capitals stay).</summary>
    private static string Sentence(string message)
    {
        var text = message.Trim().TrimEnd('.');
        return text.Length > 1 && char.IsUpper(text[0]) && char.IsLower(text[1]) ? char.ToLowerInvariant(text[0]) + text[1..] : text;
    }
}
