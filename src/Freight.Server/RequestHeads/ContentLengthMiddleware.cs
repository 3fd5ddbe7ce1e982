using System.Buffers;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.Server.RequestHeads;

/// <summary>
/// Refuses an HTTP/1.1 <c>Content-Length</c> that is not digits only (<c>+5</c>, <c>-0</c>: Kestrel parses a sign) with a
/// 400 before any endpoint reads the body: RFC 9110 §8.6 (<c>1*DIGIT</c>) and RFC 9112 §6.3 (an invalid length is an
/// unrecoverable framing error; the connection is closed). A length Kestrel itself refuses (two values, not a number)
/// never gets here: Kestrel answers 400 alone.
/// </summary>
internal sealed class ContentLengthMiddleware(RequestDelegate next, RawContentLengths lengths)
{
    private static readonly SearchValues<char> Digits = SearchValues.Create("0123456789");

    public async Task InvokeAsync(HttpContext context)
    {
        var scanner = lengths.For(context.Connection.Id);
        if (scanner is null)
        {
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
                throw new ProblemException(StatusCodes.Status400BadRequest, "Invalid Content-Length",
                    $"Content-Length must be digits only (RFC 9110 §8.6); '{raw}' is not.");
            }

            await next(context);
        }
        finally
        {
            scanner.Scanning = true;
        }
    }
}
