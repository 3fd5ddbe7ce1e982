using System.Diagnostics;
using Microsoft.AspNetCore.Http;

namespace Freight.Telemetry;

/// <summary>
/// The id a request's problem body (<c>traceId</c>) and Freight's log lines carry, so that a client's report finds
/// the line: the request's activity (<c>00-&lt;trace id&gt;-&lt;span id&gt;-&lt;flags&gt;</c>) when the host makes one, else
/// its <see cref="HttpContext.TraceIdentifier"/> — the client's W3C trace id when it sent a <c>traceparent</c>
/// (<see cref="Continue"/>), else Kestrel's <c>&lt;connection id&gt;:&lt;request number&gt;</c>.
/// </summary>
internal static class RequestTrace
{
    /// <summary>The request's id: ASP.NET Core's problem writer takes the same (the activity's, else the TraceIdentifier).</summary>
    public static string Id(HttpContext context) => Activity.Current?.Id ?? context.TraceIdentifier;

    /// <summary>
    /// Without an activity (a host whose per-request hosting logger is off and that no listener asked one of, as
    /// <c>freight serve</c> by default), ASP.NET Core ignores a client's <c>traceparent</c>: its trace id becomes the
    /// request's TraceIdentifier, so the client's trace continues in the problem and the logs. A known header's
    /// lookup is all a request without one pays; an activity, when there is one, already continues the trace.
    /// </summary>
    public static void Continue(HttpContext context)
    {
        if (Activity.Current is null
            && context.Request.Headers.TraceParent is [{ } traceParent]
            && ActivityContext.TryParse(traceParent, traceState: null, out var parent))
        {
            context.TraceIdentifier = parent.TraceId.ToHexString();
        }
    }
}
