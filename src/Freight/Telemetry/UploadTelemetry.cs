using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.Telemetry;

/// <summary>
/// One upload (a PUT, a multipart file part, a tus PATCH or creation body) from start to end: counts it started
/// and active, runs its <c>freight.upload</c> activity, and ends exactly once — <see cref="Complete"/> by the
/// handler, <see cref="Refuse"/> or <see cref="Abort"/> by the problem middleware that classifies the failure,
/// or aborted when the request ends with neither (a failure nothing classified).
/// </summary>
internal sealed class UploadTelemetry : IDisposable
{
    private readonly KeyValuePair<string, object?> _protocol;
    private readonly string? _key;
    private readonly Activity? _activity;
    private readonly ILogger? _logger;
    private bool _ended;

    private UploadTelemetry(KeyValuePair<string, object?> protocol, string? key, ILogger? logger)
    {
        _protocol = protocol;
        _key = key;
        _logger = logger;
        // Null when no one listens: then the activity costs nothing.
        _activity = FreightTelemetry.Source.StartActivity("freight.upload");
        if (_activity is not null)
        {
            _activity.SetTag(protocol.Key, protocol.Value);
            _activity.SetTag(FreightTelemetry.KeyTag, key);
        }

        FreightTelemetry.UploadsStarted.Add(1, protocol);
        FreightTelemetry.ActiveUploads.Add(1, protocol);
    }

    /// <summary>
    /// Starts the request's current upload (<paramref name="protocol"/>: <see cref="FreightTelemetry.Put"/>, …). The
    /// request's end disposes it: an upload nothing ended by then counts as aborted.
    /// </summary>
    public static UploadTelemetry Start(HttpContext context, KeyValuePair<string, object?> protocol, string? key)
    {
        var upload = new UploadTelemetry(protocol, key, context.RequestServices?.GetService<ILogger<UploadTelemetry>>());
        context.Features.Set(upload);
        context.Response.RegisterForDispose(upload);
        return upload;
    }

    /// <summary>The request's current upload, or null when it has none.</summary>
    public static UploadTelemetry? Current(HttpContext context) => context.Features.Get<UploadTelemetry>();

    /// <summary>The upload's <paramref name="bytes"/> were stored.</summary>
    public void Complete(long bytes)
    {
        if (End("completed", bytes, reason: null))
        {
            FreightTelemetry.UploadsCompleted.Add(1, _protocol);
            if (_logger is not null)
            {
                UploadLog.Completed(_logger, (string)_protocol.Value!, _key ?? "", bytes);
            }
        }
    }

    /// <summary>Refused for <paramref name="reason"/> (<see cref="UploadRefusal"/>); nothing of it was stored.</summary>
    public void Refuse(string reason)
    {
        if (End("refused", bytes: null, reason))
        {
            FreightTelemetry.UploadsRefused.Add(1, _protocol, new KeyValuePair<string, object?>(FreightTelemetry.RefusalReasonTag, reason));
        }
    }

    /// <summary>Ended without being stored or refused: the client went away, or the server failed.</summary>
    public void Abort()
    {
        if (End("aborted", bytes: null, reason: null))
        {
            FreightTelemetry.UploadsAborted.Add(1, _protocol);
            if (_logger is not null)
            {
                UploadLog.Aborted(_logger, (string)_protocol.Value!, _key ?? "");
            }
        }
    }

    public void Dispose() => Abort();

    /// <summary>Counts the end once; the activity gets every tag before it stops (exporters read it then).</summary>
    private bool End(string outcome, long? bytes, string? reason)
    {
        if (_ended)
        {
            return false;
        }

        _ended = true;
        FreightTelemetry.ActiveUploads.Add(-1, _protocol);
        if (_activity is not null)
        {
            _activity.SetTag(FreightTelemetry.OutcomeTag, outcome);
            _activity.SetTag(FreightTelemetry.RefusalReasonTag, reason);
            if (bytes is { } stored)
            {
                _activity.SetTag(FreightTelemetry.BytesTag, stored);
            }
            else
            {
                _activity.SetStatus(ActivityStatusCode.Error);
            }

            _activity.Stop();
        }

        return true;
    }
}
