using System.Buffers;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace Freight.AspNetCore.RequestHeads;

/// <summary>
/// Refuses an HTTP/1.x <c>Content-Length</c> that is not digits only (<c>+5</c>, <c>-0</c>: Kestrel parses a sign) with a
/// 400 problem before anything in the app reads the body, and closes the connection: RFC 9110 §8.6 (<c>1*DIGIT</c>) and
/// RFC 9112 §6.3 (an invalid length is an unrecoverable framing error). A length Kestrel itself refuses (two values,
/// not a number) never gets here: Kestrel answers 400 alone.
/// </summary>
internal sealed partial class ContentLengthMiddleware(RawContentLengths lengths, ProblemMiddleware problems, ILogger<ContentLengthMiddleware> logger)
{
    private static readonly SearchValues<char> Digits = SearchValues.Create("0123456789");

    private int _unscannedLogged;

    public async Task InvokeAsync(HttpContext context, RequestDelegate next)
    {
        // HTTP/2's streams share a connection and its scanner: their lengths are not this check's (DATA frames frame them).
        if (!IsHttp1(context))
        {
            await next(context);
            return;
        }

        var scanner = lengths.For(context.Connection.Id);
        if (scanner is null)
        {
            LogUnscannedOnce(context);
            await next(context);
            return;
        }

        // The head is read: the body is the application's, not scanned, until the request ends.
        scanner.Scanning = false;
        try
        {
            var raw = scanner.TakeLastValue();
            if (context.Request.ContentLength is not null && raw is not null && (raw.Length == 0 || raw.AsSpan().ContainsAnyExcept(Digits)))
            {
                // Closed whatever the length said (-0 has no body to leave unread): the framing cannot be trusted.
                var refusal = new ProblemException(StatusCodes.Status400BadRequest, "Invalid Content-Length",
                    $"Content-Length must be digits only (RFC 9110 §8.6); '{raw}' is not.").WithHeader("Connection", "close");
                await problems.AnswerErrorsAsync(context, refused =>
                {
                    ProblemMiddleware.Refuse(refused, refusal);
                    return Task.CompletedTask;
                });
                return;
            }

            await next(context);
        }
        finally
        {
            scanner.Scanning = true;
        }
    }

    private static bool IsHttp1(HttpContext context) =>
        HttpProtocol.IsHttp11(context.Request.Protocol) || HttpProtocol.IsHttp10(context.Request.Protocol);

    /// <summary>
    /// An HTTP/1.x request on a connection no scan saw: its length goes unchecked. Kestrel keeps one endpoint-defaults
    /// action, and the app's own <c>ConfigureEndpointDefaults</c> replaced the registration's; or the server is not
    /// Kestrel (a test server). Said once, not per request.
    /// </summary>
    private void LogUnscannedOnce(HttpContext context)
    {
        if (Interlocked.Exchange(ref _unscannedLogged, 1) == 0)
        {
            LogUnscanned(logger, context.Connection.LocalPort);
        }
    }

    [LoggerMessage(1, LogLevel.Warning, "AddFreightStrictContentLength: HTTP/1.1 requests on port {Port} arrive on connections it does not scan, so their Content-Length is not checked: Kestrel keeps one ConfigureEndpointDefaults action, and the app's own replaced the one that scans (set those endpoint settings in each Listen call instead), or the server is not Kestrel.")]
    private static partial void LogUnscanned(ILogger logger, int port);
}
