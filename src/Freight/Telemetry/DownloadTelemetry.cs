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

    /// <summary>The answer went out: its status and the body's length (0 for a 304 or 412).</summary>
    public static void Complete(Activity? activity, HttpResponse response)
    {
        if (activity is null)
        {
            return;
        }

        activity.SetTag(FreightTelemetry.OutcomeTag, "completed");
        activity.SetTag(FreightTelemetry.BytesTag, response.ContentLength ?? 0);
        activity.SetTag("http.response.status_code", response.StatusCode);
        activity.SetStatus(ActivityStatusCode.Unset);
    }
}
