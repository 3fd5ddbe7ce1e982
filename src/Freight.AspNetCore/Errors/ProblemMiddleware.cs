using Freight.Multipart;
using Freight.Telemetry;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.AspNetCore.Errors;

/// <summary>
/// Turns request errors into <c>application/problem+json</c> with the right status (never a 500 for
/// bad input), logs each once, and keeps client aborts out of the error log. Anything written to
/// storage by the failed request is aborted by the handler's own disposal before this runs. Wraps the files and tus
/// endpoints (their route groups) always, and a whole app with <c>UseFreightProblems()</c>, which also gives a body to
/// what routing answers without one (404, 405, 415); nested, the inner one answers.
/// </summary>
internal sealed partial class ProblemMiddleware(
    IProblemDetailsService problems,
    IEnumerable<Freight.Storage.IStoreFailureClassifier> storeFailures,
    ILogger<ProblemMiddleware> logger,
    Files.UploadLimiter? uploads = null,
    Microsoft.Extensions.Hosting.IHostApplicationLifetime? lifetime = null,
    Files.FilesOptions? files = null)
{
    /// <summary>The start of Kestrel's reason for a body under its minimum rate (CoreStrings.BadRequest_RequestBodyTimeout), which Kestrel's HTTP/2 connection abort carries too.</summary>
    private const string KestrelBodyTimeout = "Reading the request body timed out due to data arriving too slowly.";

    /// <summary>
    /// The whole app's (<c>UseFreightProblems()</c>): the errors of everything after it, routing's bodiless answers, and
    /// an exception no one answered, as a 500 problem.
    /// </summary>
    public async Task InvokeAsync(HttpContext context, RequestDelegate next)
    {
        try
        {
            await AnswerErrorsAsync(context, next);
        }
        catch (Exception unexpected)
        {
            await AnswerUnexpectedAsync(context, unexpected);
            return;
        }

        if (IsBodilessRoutingAnswer(context))
        {
            await AnswerRoutingAsync(context);
        }
    }

    /// <summary>
    /// A failure that is not the client's (a bug, a dependency no classifier knows): logged once at Error with its
    /// stack, and answered as a 500 problem that says nothing of it, or, once the response has started, by aborting.
    /// Kestrel alone answered a bare 500 (HTTP/1.1, nothing in the body) and logged it as its own.
    /// </summary>
    private async Task AnswerUnexpectedAsync(HttpContext context, Exception unexpected)
    {
        LogFailed(logger, context.Request.Method, context.Request.Path, TraceId(context), unexpected);
        if (context.Response.HasStarted)
        {
            context.Abort();
            return;
        }

        var unreadBody = LingeringClose.MayHaveUnreadBody(context);
        await WriteProblemAsync(context, closeConnection: unreadBody,
            new ProblemDetails { Status = StatusCodes.Status500InternalServerError, Detail = "The server failed to answer; the failure is in its log." });
        if (unreadBody)
        {
            await LingeringClose.DrainAsync(context, logger);
        }
    }

    /// <summary>One endpoint's (the files and tus route groups): the errors its handler throws, or refuses with (<see cref="Refuse"/>).</summary>
    public async Task AnswerErrorsAsync(HttpContext context, RequestDelegate next)
    {
        RequestTrace.Continue(context);
        try
        {
            await next(context);
        }
        catch (Exception exception) when (IsStopCut(context, exception))
        {
            // First: once the host's stop cut the uploads, Kestrel's own resets look like clients going away too.
            await AnswerStoppingAsync(context, exception);
            return;
        }
        catch (Exception exception) when (context.RequestAborted.IsCancellationRequested && IsKestrelsRateCut(context, exception))
        {
            // Kestrel cut the HTTP/2 connection, so there is no one to answer.
            EndUpload(context, StatusCodes.Status408RequestTimeout, "Request timeout", cutOff: false);
            LogRateCut(logger, context.Request.Method, context.Request.Path, TooSlow(), Client(context), TraceId(context));
            return;
        }
        catch (Exception exception) when (context.RequestAborted.IsCancellationRequested)
        {
            AnswerClientGone(context, exception);
            return;
        }
        catch (IOException exception) when (!IsHttp1(context) && Classify(exception) is null)
        {
            // HTTP/2: a client's RST_STREAM fails the body read at once with an IOException, while Kestrel signals
            // RequestAborted on the thread pool a moment later (a loaded CI run logged a client's cancel as a 500).
            if (!await SignalledSoonAsync(context.RequestAborted))
            {
                throw;
            }

            AnswerClientGone(context, exception);
            return;
        }
        catch (Exception caught) when (Classify(caught) is { } problem)
        {
            await AnswerAsync(context, caught, problem);
            return;
        }

        // A refusal sets its status (Refuse): the status read is all an answered request pays here.
        if (context.Response.StatusCode >= StatusCodes.Status400BadRequest && context.Features.Get<Refusal>() is { } refusal)
        {
            context.Features.Set<Refusal>(null);
            await AnswerAsync(context, refusal.Problem, Classify(refusal.Problem)!.Value);
        }
    }

    /// <summary>The client went away mid-request: logged once, its upload ended as aborted, nothing answered.</summary>
    private void AnswerClientGone(HttpContext context, Exception exception)
    {
        UploadTelemetry.Current(context)?.Abort();
        LogClientAborted(logger, context.Request.Method, context.Request.Path, exception.GetType().Name, Client(context), TraceId(context));
        StopReadingRequests(context);
    }

    /// <summary>Whether <paramref name="aborted"/> is signalled within a second (Kestrel signals it from the thread pool).</summary>
    private static async Task<bool> SignalledSoonAsync(CancellationToken aborted)
    {
        var signalled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var registration = aborted.Register(() => signalled.TrySetResult());
        return await Task.WhenAny(signalled.Task, Task.Delay(TimeSpan.FromSeconds(1))) == signalled.Task;
    }

    /// <summary>
    /// A request the host's stop cut (<see cref="Hosting.StoppingUploads"/>): an upload its body read ended, or what
    /// Kestrel reset at the timeout. The server's doing, so not "the client went away", and not a 500 with a stack:
    /// Warning, for an operator who should know that a stop lost uploads, and a 503 while the response can still be
    /// written. A PUT's or POST's store write was aborted by the handler's disposal; a tus PATCH keeps what arrived.
    /// </summary>
    private async Task AnswerStoppingAsync(HttpContext context, Exception exception)
    {
        UploadTelemetry.Current(context)?.Abort();
        LogStopCut(logger, context.Request.Method, context.Request.Path, exception.GetType().Name, TraceId(context));
        if (context.Response.HasStarted || context.RequestAborted.IsCancellationRequested)
        {
            context.Abort();
            return;
        }

        // The server is going: no further request on the connection. Kestrel reads off the rest of the body after the
        // answer (its own drain, at most 5 s and cut by the host's timeout), which a client still sending needs to read
        // the 503 rather than a reset: a followed body stays readable after the cut (FollowedBodyStream). What the
        // request kept is listed, as for any failure (a multipart POST's files stored before the cut).
        await WriteProblemAsync(context, closeConnection: IsHttp1(context), WithExtensions(context, new ProblemDetails
        {
            Status = StatusCodes.Status503ServiceUnavailable,
            Title = "Server stopping",
            Detail = "The server is stopping and cut this request off before it ended; send it again once the server is back (a tus upload: ask its offset, then continue).",
        }));
        StopReadingRequests(context);
    }

    /// <summary>A problem of the middleware's own (a 500, the stop's 503), in place of whatever the handler had set.</summary>
    private async Task WriteProblemAsync(HttpContext context, bool closeConnection, ProblemDetails problem)
    {
        context.Response.Clear();
        context.Response.StatusCode = problem.Status!.Value;
        if (closeConnection)
        {
            context.Response.Headers.Connection = "close";
        }

        await problems.TryWriteAsync(new ProblemDetailsContext { HttpContext = context, ProblemDetails = problem });
    }

    /// <summary>The members the request's handlers added (<see cref="ProblemExtensions"/>), in <paramref name="details"/>.</summary>
    private static ProblemDetails WithExtensions(HttpContext context, ProblemDetails details)
    {
        if (ProblemExtensions.Of(context) is { } extensions)
        {
            foreach (var (name, value) in extensions)
            {
                details.Extensions[name] = value;
            }
        }

        return details;
    }

    /// <summary>
    /// Whether the host's stop ended the request: it cut the uploads in flight (and Kestrel resets what is left), or, while
    /// requests drain, a body read came back canceled with the client still there. Kestrel's graceful stop cancels its
    /// HTTP/1.1 input's pending read, which a reader that examined past what it consumed sees: Freight's uploads read
    /// past it (<see cref="Freight.Uploads.UploadBodyReader"/>), but a route of the app's own that reads
    /// <c>Request.BodyReader</c> so would fail with it, once a 500.
    /// </summary>
    private bool IsStopCut(HttpContext context, Exception exception) =>
        uploads is { StopCut: true }
        || (exception is OperationCanceledException && !context.RequestAborted.IsCancellationRequested && lifetime is { ApplicationStopping.IsCancellationRequested: true });

    internal static bool IsHttp1(HttpContext context) =>
        HttpProtocol.IsHttp11(context.Request.Protocol) || HttpProtocol.IsHttp10(context.Request.Protocol);

    /// <summary>
    /// Answers the request with <paramref name="problem"/> once its handler returns, as if the handler had thrown it, but
    /// without the throw: the refusals any client can send at will (a missing file, a failed precondition) then cost
    /// no exception, where a throw cost two or more (one more at each await it crosses).
    /// </summary>
    public static void Refuse(HttpContext context, ProblemException problem)
    {
        context.Features.Set(new Refusal(problem));
        if (!context.Response.HasStarted)
        {
            context.Response.StatusCode = problem.Status;
        }
    }

    private sealed record Refusal(ProblemException Problem);

    /// <summary>The answer to a request that failed with <paramref name="caught"/>: its problem, logged once.</summary>
    private async Task AnswerAsync(HttpContext context, Exception caught, (int Status, string Title, string? Detail) problem)
    {
        // One 507 whichever path ran out of space: the client gets the problem's detail, the log the cause's.
        // Likewise one 503 for a storage that cannot be written (read-only, no permission, its directory moved away).
        var exception = caught switch
        {
            ProblemException => caught,
            _ when Freight.Storage.OutOfSpace.Is(caught) => ProblemException.StorageFull(caught),
            _ when Freight.Storage.Unwritable.Is(caught) => ProblemException.StorageUnwritable(caught),
            _ => caught,
        };
        EndUpload(context, problem.Status, problem.Title, IsBodyCutOff(exception));
        if (IsBodyCutOff(exception))
        {
            // Still answered below: a client that only half-closed its side can read the 400.
            LogClientAborted(logger, context.Request.Method, context.Request.Path, exception.GetType().Name, Client(context), TraceId(context));
        }
        else if (problem.Title is ProblemException.StorageFullTitle or ProblemException.StorageUnwritableTitle)
        {
            // The operator's problem, not the client's: an error, one line without a stack, with the path and errno
            // text the client is not shown.
            LogStorage(logger, context.Request.Method, context.Request.Path, problem.Status,
                problem.Status == StatusCodes.Status507InsufficientStorage ? "the storage is full" : "the storage cannot be written",
                exception.InnerException?.Message ?? exception.Message, TraceId(context));
        }
        else
        {
            // The reason the client reads, where the problem gave one of its own (Kestrel's "Bad chunk size data." is not).
            LogRejected(logger, context, problem.Status, problem.Detail ?? exception.Message);
        }

        if (context.Response.HasStarted)
        {
            context.Abort();
            return;
        }

        context.Response.Clear();
        context.Response.StatusCode = problem.Status;
        if (exception is ProblemException { Headers: var headers })
        {
            foreach (var (name, value) in headers)
            {
                context.Response.Headers[name] = value;
            }
        }

        // A body perhaps not read to its end: the connection ends after the answer (the rest is read only within a
        // bound, below). Not on HTTP/2, where Connection is no field (RFC 9113 §8.2.2): Kestrel removed it with a
        // warning for every refused upload (Kestrel[41]).
        var unreadBody = LingeringClose.MayHaveUnreadBody(context);
        if (unreadBody)
        {
            context.Response.Headers.Connection = "close";
        }

        var details = WithExtensions(context, new ProblemDetails { Status = problem.Status, Type = TypeOf(problem.Status), Title = problem.Title, Detail = problem.Detail ?? exception.Message });
        await problems.WriteAsync(new ProblemDetailsContext { HttpContext = context, ProblemDetails = details });

        if (IsBodyCutOff(exception))
        {
            // The 400 stays readable by a client that only half-closed; no request is read after it.
            StopReadingRequests(context);
        }
        else if (unreadBody)
        {
            await LingeringClose.DrainAsync(context, logger);
        }
    }

    /// <summary>
    /// No further request on this HTTP/1.x connection: its client went away or cut its body off. Kestrel stops its own
    /// loop when its exception for that leaves the app; answered here instead, Kestrel went on to read a next request
    /// from an input its body reader had left mid-read, and logged "Reading is already in progress" as a warning with
    /// its stack, once a cut upload (an abort alone does not stop that loop). Not on HTTP/2: there the request is one
    /// stream, and closing its connection would end its siblings' too.
    /// </summary>
    private static void StopReadingRequests(HttpContext context)
    {
        if (IsHttp1(context))
        {
            context.Features.Get<IConnectionLifetimeNotificationFeature>()?.RequestClose();
        }
    }

    /// <summary>
    /// What no handler answered, left without a body: no route (404), a method the route lacks (405, with its Allow),
    /// a Content-Type the route does not accept (415: routing checks an endpoint's Accepts metadata, e.g. a
    /// <c>FreightMultipart</c> parameter's, before the handler runs). Other bodiless errors stay as their handlers made
    /// them (a static file's 412 has none, as in StaticFiles), and so does an answer whose handler turned status code
    /// pages off (<see cref="IStatusCodePagesFeature"/>), as <c>UseStatusCodePages()</c> would leave it.
    /// </summary>
    private static bool IsBodilessRoutingAnswer(HttpContext context)
    {
        var response = context.Response;
        return response.StatusCode is StatusCodes.Status404NotFound or StatusCodes.Status405MethodNotAllowed or StatusCodes.Status415UnsupportedMediaType
            && !response.HasStarted
            && response.ContentLength is null
            && string.IsNullOrEmpty(response.ContentType)
            && !context.RequestAborted.IsCancellationRequested
            && context.Features.Get<IStatusCodePagesFeature>() is not { Enabled: false };
    }

    /// <summary>Routing's answer as a problem: its status, ASP.NET Core's type (RFC 9110's section) and title for it, and what did not match.</summary>
    private async Task AnswerRoutingAsync(HttpContext context)
    {
        var status = context.Response.StatusCode;
        var reason = status switch
        {
            StatusCodes.Status404NotFound => "no route matches the path",
            StatusCodes.Status405MethodNotAllowed => "the route does not take this method",
            _ => "the route does not take this Content-Type",
        };
        LogRejected(logger, context, status, reason);

        // TryWrite: a client whose Accept refuses JSON keeps the bare status rather than getting an exception. The path
        // the client asked for: behind a proxy that mounts the app under a prefix (X-Forwarded-Prefix, UsePathBase),
        // Path alone lacks it.
        await problems.TryWriteAsync(new ProblemDetailsContext
        {
            HttpContext = context,
            ProblemDetails = new ProblemDetails { Status = status, Detail = $"{context.Request.Method} {context.Request.PathBase.Add(context.Request.Path)}: {reason}." },
        });
        if (LingeringClose.MayHaveUnreadBody(context))
        {
            await LingeringClose.DrainAsync(context, logger);
        }
    }

    /// <summary>
    /// The type of a problem whose status ASP.NET Core's problem writer has none for (its table stops at the common
    /// ones): where the status is defined. Null leaves the writer's own.
    /// </summary>
    private static string? TypeOf(int status) => status switch
    {
        StatusCodes.Status410Gone => "https://tools.ietf.org/html/rfc9110#section-15.5.11",
        StatusCodes.Status413PayloadTooLarge => "https://tools.ietf.org/html/rfc9110#section-15.5.14",
        StatusCodes.Status416RangeNotSatisfiable => "https://tools.ietf.org/html/rfc9110#section-15.5.17",
        StatusCodes.Status423Locked => "https://tools.ietf.org/html/rfc4918#section-11.3",
        StatusCodes.Status429TooManyRequests => "https://tools.ietf.org/html/rfc6585#section-4",
        StatusCodes.Status431RequestHeaderFieldsTooLarge => "https://tools.ietf.org/html/rfc6585#section-5",
        Tus.TusProtocol.ChecksumMismatchStatus => "https://tus.io/protocols/resumable-upload#checksum",
        StatusCodes.Status507InsufficientStorage => "https://tools.ietf.org/html/rfc4918#section-11.5",
        _ => null,
    };

    /// <summary>
    /// Whether Kestrel's minimum body rate cut the request's HTTP/2 connection: Kestrel enforces it per connection and
    /// aborts the whole connection (GOAWAY), and the body read fails as if the client had gone. Not Freight's uploads,
    /// which Freight holds to the rate per stream instead (<see cref="Freight.Uploads.UploadRate"/>, a 408 like
    /// HTTP/1.1's), but a body of the app's own routes, and whatever else was on that connection. Known only when
    /// Kestrel's reason is in the failure's chain, a ConnectionAbortedException with its HTTP/1.1 408's message (it has
    /// no other mark); Kestrel passes it on only when its frame loop was waiting for input as it cut, else the request
    /// learns only that the connection ended and is logged as the client going away.
    /// </summary>
    private static bool IsKestrelsRateCut(HttpContext context, Exception exception)
    {
        if (IsHttp1(context))
        {
            return false;
        }

        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            if (inner is Microsoft.AspNetCore.Connections.ConnectionAbortedException && inner.Message.StartsWith(KestrelBodyTimeout, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// The client closed the connection before its body ended: Kestrel fails the read with a 400 that hardly
    /// anyone receives (the abort token may not be signalled yet), so it is logged as the client going away.
    /// </summary>
    private static bool IsBodyCutOff(Exception exception) =>
        exception is BadHttpRequestException { StatusCode: StatusCodes.Status400BadRequest } bad
        && bad.Message.StartsWith("Unexpected end of request content", StringComparison.Ordinal);

    /// <summary>The status and title for <paramref name="exception"/>, and a detail when its message is not for the client; null for a 500.</summary>
    private (int Status, string Title, string? Detail)? Classify(Exception exception) => exception switch
    {
        BadHttpRequestException { StatusCode: StatusCodes.Status413PayloadTooLarge } => (413, "Request body too large", null),
        // Kestrel's minimum body rate, which AddFreightFiles sets from its own option: Kestrel's message names its key.
        BadHttpRequestException { StatusCode: StatusCodes.Status408RequestTimeout } => (408, "Request timeout", TooSlow()),
        BadHttpRequestException bad => (bad.StatusCode, "Bad request", null),
        // Kestrel's chunked parser refuses a chunk size past 31 bits with an IOException around the overflow
        // (every other malformed chunk is a BadHttpRequestException): the client's framing, RFC 9112 §7.1.
        IOException { InnerException: OverflowException } => (400, "Malformed chunked body", "A chunk size is too large to be a chunk size."),
        MultipartFormatException => (400, "Malformed multipart body", null),
        InvalidDataException => (400, "Malformed form data", null),
        ProblemException refused => (refused.Status, refused.Title, null),
        Freight.Storage.KeyConflictException => (409, "Conflict", null),
        // Rewritten faster than it could be read, several times over (FilesEndpoints retries): ask again later.
        Freight.Storage.ObjectReplacedException => (503, "Changed while being read", null),
        _ when Freight.Storage.OutOfSpace.Is(exception) => (StatusCodes.Status507InsufficientStorage, ProblemException.StorageFullTitle, null),
        _ when Freight.Storage.Unwritable.Is(exception) => (StatusCodes.Status503ServiceUnavailable, ProblemException.StorageUnwritableTitle, null),
        // A remote store's backend (e.g. S3) refused, failed or could not be reached: not the client's fault.
        _ => StoreFailureOf(exception) switch
        {
            Freight.Storage.StoreFailure.Failed => (502, "Object store failed", null),
            Freight.Storage.StoreFailure.Unreachable => (502, "Object store unreachable", null),
            _ => null,
        },
    };

    /// <summary>The 408's detail: the slowest body the server takes, under Freight's option, not Kestrel's.</summary>
    private string TooSlow() => files is { MinUploadBytesPerSecond: > 0 and var rate }
        ? string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"The body arrived slower than {rate:0.###} bytes/s ({Files.FilesOptions.SectionName}:MinUploadBytesPerSecond), the slowest upload the server takes after a 5 s grace period.")
        : "The body arrived slower than the server's minimum data rate (Kestrel's MinRequestBodyDataRate).";

    private Freight.Storage.StoreFailure StoreFailureOf(Exception exception)
    {
        foreach (var classifier in storeFailures)
        {
            if (classifier.Classify(exception) is not Freight.Storage.StoreFailure.None and var failure)
            {
                return failure;
            }
        }

        return Freight.Storage.StoreFailure.None;
    }

    /// <summary>Ends the request's upload, if one was running, as its answer says: refused for a reason, or aborted.</summary>
    private static void EndUpload(HttpContext context, int status, string title, bool cutOff)
    {
        if (UploadTelemetry.Current(context) is not { } upload)
        {
            return;
        }

        var reason = status switch
        {
            _ when cutOff => null,
            StatusCodes.Status401Unauthorized => UploadRefusal.Unauthorized,
            StatusCodes.Status403Forbidden => UploadRefusal.Forbidden,
            StatusCodes.Status413PayloadTooLarge => UploadRefusal.TooLarge,
            StatusCodes.Status412PreconditionFailed => UploadRefusal.Precondition,
            StatusCodes.Status409Conflict or StatusCodes.Status423Locked => UploadRefusal.Conflict,
            StatusCodes.Status429TooManyRequests => UploadRefusal.Quota,
            StatusCodes.Status507InsufficientStorage => UploadRefusal.OutOfSpace,
            Tus.TusProtocol.ChecksumMismatchStatus => UploadRefusal.DigestMismatch,
            StatusCodes.Status400BadRequest when title == ProblemException.DigestMismatchTitle => UploadRefusal.DigestMismatch,
            < 500 => UploadRefusal.BadRequest,
            // 502 and the like: the store failed, not the client's upload.
            _ => null,
        };
        if (reason is null)
        {
            upload.Abort();
        }
        else
        {
            upload.Refuse(reason);
        }
    }

    /// <summary>
    /// A refusal, once. A client's error (4xx) is Information: it is the client's to mend, and any anonymous client can
    /// send thousands, so a server logging at Warning (a usual production level) should not print them. A 5xx that is
    /// not the client's (a remote store failed, an object kept changing) is Warning.
    /// </summary>
    /// <summary>
    /// A refusal a result wrote itself (<c>FreightResults</c>' 404, which must answer in an app without this
    /// middleware too), logged as this middleware logs its own: once, in its category, at its level.
    /// </summary>
    public static void LogAnswered(IServiceProvider services, HttpContext context, int status, string reason)
    {
        if (services.GetService<ILogger<ProblemMiddleware>>() is { } logger)
        {
            LogRejected(logger, context, status, reason);
        }
    }

    private static void LogRejected(ILogger logger, HttpContext context, int status, string reason)
    {
        // The client's address and the trace id are formatted only for a line that is written: a flood of refusals
        // with the category at Warning (as docs/library.md advises) would otherwise allocate both for nothing.
        var level = status < 500 ? LogLevel.Information : LogLevel.Warning;
        if (logger.IsEnabled(level))
        {
            LogRefused(logger, level, context.Request.Method, context.Request.Path, status, reason, Client(context), TraceId(context));
        }
    }

    /// <summary>
    /// Who was refused, for an operator (a client repeating 401s, one always too slow): the connection's address, an
    /// IPv4 client of a dual-stack listener as IPv4; behind a proxy, the proxy's unless the app applies forwarded
    /// headers first (<c>UseForwardedHeaders</c>).
    /// </summary>
    private static string Client(HttpContext context) => context.Connection.RemoteIpAddress switch
    {
        null => "unknown",
        { IsIPv4MappedToIPv6: true } mapped => mapped.MapToIPv4().ToString(),
        var address => address.ToString(),
    };

    /// <summary>The id the problem body carries as <c>traceId</c>, in the log line too (<see cref="RequestTrace"/>).</summary>
    private static string TraceId(HttpContext context) => RequestTrace.Id(context);

    [LoggerMessage(EventId = 1, Message = "{Method} {Path} rejected with {Status}: {Reason} (client {Client}, trace {TraceId})")]
    private static partial void LogRefused(ILogger logger, LogLevel level, string method, string path, int status, string reason, string client, string traceId);

    [LoggerMessage(2, LogLevel.Information, "{Method} {Path}: the client went away ({Exception}; client {Client}, trace {TraceId})")]
    private static partial void LogClientAborted(ILogger logger, string method, string path, string exception, string client, string traceId);

    [LoggerMessage(7, LogLevel.Information, "{Method} {Path}: cut off by the server, unanswered: {Reason} Kestrel closed the HTTP/2 connection, and every request on it (client {Client}, trace {TraceId})")]
    private static partial void LogRateCut(ILogger logger, string method, string path, string reason, string client, string traceId);

    [LoggerMessage(5, LogLevel.Warning, "{Method} {Path}: cut off, the server is stopping ({Exception}; trace {TraceId})")]
    private static partial void LogStopCut(ILogger logger, string method, string path, string exception, string traceId);

    [LoggerMessage(4, LogLevel.Error, "{Method} {Path} failed (trace {TraceId})")]
    private static partial void LogFailed(ILogger logger, string method, string path, string traceId, Exception exception);

    [LoggerMessage(3, LogLevel.Error, "{Method} {Path} answered {Status}, {Problem}: {Reason} (trace {TraceId})")]
    private static partial void LogStorage(ILogger logger, string method, string path, int status, string problem, string reason, string traceId);
}
