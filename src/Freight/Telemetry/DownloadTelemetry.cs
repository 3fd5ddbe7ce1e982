using System.Diagnostics;
using Microsoft.AspNetCore.Http;

namespace Freight.Telemetry;

/// <summary>The <c>freight.download</c> activity around a GET of a stored file (its bytes are counted where they are written: <see cref="FreightTelemetry.DownloadBytes"/>).</summary>
internal static class DownloadTelemetry
{
    /// <summary>
    /// Starts the activity, or returns null when no one listens. It reads "aborted" until <see cref="Complete"/>
    /// says otherwise, so a download that throws is stopped (by its <c>using</c>) as one.
    /// </summary>
    public static Activity? Start(string key)
    {
        var activity = FreightTelemetry.Source.StartActivity("freight.download");
        if (activity is not null)
        {
            activity.SetTag(FreightTelemetry.KeyTag, key);
            activity.SetTag(FreightTelemetry.OutcomeTag, "aborted");
            activity.SetStatus(ActivityStatusCode.Error);
        }

        return activity;
    }

    /// <summary>
    /// The answer went out: its status and the body's length (0 for a 304 or 412). A 412 or 416 is the client's
    /// conditions or range refused, as an upload's 4xx is (<c>refused</c>); a 304 answered its condition (<c>completed</c>).
    /// </summary>
    public static void Complete(Activity? activity, HttpResponse response)
    {
        if (activity is null)
        {
            return;
        }

        activity.SetTag(FreightTelemetry.BytesTag, response.ContentLength ?? 0);
        Answered(activity, response.StatusCode);
    }

    /// <summary>There is no such file: the client's mistake, answered with a 404 by the caller.</summary>
    public static void NotFound(Activity? activity)
    {
        if (activity is not null)
        {
            Answered(activity, StatusCodes.Status404NotFound);
        }
    }

    /// <summary>
    /// An answer, not a failure: status Unset, as OpenTelemetry's HTTP server spans leave a 4xx (the client's to mend),
    /// so a dashboard counting the errors of <c>freight.download</c> does not count clients' mistakes.
    /// </summary>
    private static void Answered(Activity activity, int status)
    {
        activity.SetTag(FreightTelemetry.OutcomeTag, status >= StatusCodes.Status400BadRequest ? "refused" : "completed");
        activity.SetTag("http.response.status_code", status);
        activity.SetStatus(ActivityStatusCode.Unset);
    }
}
