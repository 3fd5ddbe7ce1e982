using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Logging;

namespace Freight.AspNetCore.Errors;

/// <summary>
/// RFC 9112 §9.6's lingering close, for an HTTP/1.x answer sent before its request's body was read: the rest of the
/// body is read and dropped once the answer is sent, at most <see cref="MaxBytes"/> in at most <see cref="MaxTime"/>,
/// and the connection is cut past either. A socket closed with bytes unread makes Linux reset the connection, and the
/// reset fails the writes of a client still sending the body: nginx streaming a body upstream
/// (<c>proxy_request_buffering off</c>) gave up on its failed write and answered 502 in place of the refusal, 7 PUTs in
/// 10 of a 300 MB body over the limit. Kestrel drains an unread body after the app itself, but not one over the
/// request's body limit (its 413 again, then a close with the body unread): the 413 of every large upload, and any
/// refusal of a body over the server's limit.
/// </summary>
internal static partial class LingeringClose
{
    /// <summary>
    /// The most of a refused body read after its answer: far more than a proxy or client has in flight before it reads
    /// the answer and stops (nginx: under 10 MB), and a whole body of up to 1 GiB for a client that reads only once it
    /// has sent all; a client that sends more is cut.
    /// </summary>
    public const long MaxBytes = 1L << 30;

    /// <summary>How long the rest of a refused body is read after its answer: Kestrel's own drain of an unread body waits as long.</summary>
    public static readonly TimeSpan MaxTime = TimeSpan.FromSeconds(5);

    /// <summary>
    /// Whether an HTTP/1.x request may still have body bytes on its connection. Not on HTTP/2, where a stream's unread
    /// body is reset by Kestrel alone, its connection and siblings unharmed.
    /// </summary>
    public static bool MayHaveUnreadBody(HttpContext context) =>
        ProblemMiddleware.IsHttp1(context) && (context.Request.ContentLength is > 0 || context.Request.Headers.TransferEncoding.Count > 0);

    /// <summary>
    /// Sends the answer written so far, then reads what is left of the request's body, within the bounds; past them the
    /// connection is aborted. A body read to its end (or one already read) costs one read.
    /// </summary>
    public static async Task DrainAsync(HttpContext context, ILogger logger)
    {
        // The request's limit would refuse the rest of a body over it, as it refused the body: the bounds take its place.
        if (context.Features.Get<IHttpMaxRequestBodySizeFeature>() is { IsReadOnly: false } limit)
        {
            limit.MaxRequestBodySize = null;
        }

        using var time = new CancellationTokenSource(MaxTime);
        var reader = context.Request.BodyReader;
        long dropped = 0;
        try
        {
            await context.Response.CompleteAsync();
            while (true)
            {
                var result = await reader.ReadAsync(time.Token);
                dropped += result.Buffer.Length;
                reader.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                {
                    return;
                }

                if (dropped > MaxBytes || time.IsCancellationRequested)
                {
                    break;
                }
            }
        }
        catch (OperationCanceledException) when (time.IsCancellationRequested && !context.RequestAborted.IsCancellationRequested)
        {
            // The time bound: cut below.
        }
        catch (Exception ended) when (ended is BadHttpRequestException or IOException or OperationCanceledException or InvalidOperationException)
        {
            // Nothing more to read: the client closed or broke the body, or went away; or its handler left the body
            // mid-read, which no one can read on (the connection closes as it would have).
            return;
        }

        LogCut(logger, context.Request.Method, context.Request.Path, dropped);
        context.Abort();
    }

    [LoggerMessage(6, LogLevel.Debug, "{Method} {Path}: the client sent on after the answer; the connection is cut after {Bytes} bytes read and dropped")]
    private static partial void LogCut(ILogger logger, string method, string path, long bytes);
}
