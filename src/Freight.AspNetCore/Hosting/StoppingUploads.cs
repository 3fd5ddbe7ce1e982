using System.Globalization;
using Freight.AspNetCore.Files;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Freight.AspNetCore.Hosting;

/// <summary>
/// The host's stop, for uploads. When it begins (<see cref="IHostApplicationLifetime.ApplicationStopping"/>): one line
/// saying how long the host waits for requests in flight (<see cref="HostOptions.ShutdownTimeout"/>) and how many
/// uploads are among them. Kestrel lets them run that long, then resets their connections; so shortly before,
/// <see cref="CutBefore"/> ahead of the timeout, the uploads still running are cut (<see cref="UploadLimiter.CutAll"/>)
/// and answered 503 by the problem middleware, which logs them as cut by the stop, not as clients that went away.
/// </summary>
internal sealed partial class StoppingUploads(IHostApplicationLifetime lifetime, IOptions<HostOptions> host, UploadLimiter uploads, ILogger<StoppingUploads> logger)
    : IHostedService, IDisposable
{
    /// <summary>
    /// How long before the host's timeout the uploads are cut: the time they have to be answered (their store writes
    /// aborted, a 503 written, HTTP/1.1 connections closed) before Kestrel resets what is left. Those take
    /// milliseconds on the file-system store; an S3 abort is one request. Half the timeout when it is under 4 s.
    /// </summary>
    public static readonly TimeSpan CutBefore = TimeSpan.FromSeconds(2);

    private readonly Lock _lock = new();
    private CancellationTokenRegistration _stopping;
    private ITimer? _cut;
    private bool _disposed;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _stopping = lifetime.ApplicationStopping.Register(static state => ((StoppingUploads)state!).OnStopping(), this);
        return Task.CompletedTask;
    }

    // Not here: the hosted services stop before Kestrel does, and the uploads run on until the timeout.
    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>When the uploads still in flight are cut, counted from the stop's start.</summary>
    public static TimeSpan CutAfter(TimeSpan shutdownTimeout) =>
        shutdownTimeout <= TimeSpan.Zero ? TimeSpan.Zero
        : shutdownTimeout >= 2 * CutBefore ? shutdownTimeout - CutBefore
        : shutdownTimeout / 2;

    private void OnStopping()
    {
        if (!lifetime.ApplicationStarted.IsCancellationRequested)
        {
            return; // a start that failed (an address it could not listen on): no request ever ran
        }

        var timeout = host.Value.ShutdownTimeout;
        var seconds = timeout == Timeout.InfiniteTimeSpan ? "ever" : "up to " + timeout.TotalSeconds.ToString("0.###", CultureInfo.InvariantCulture) + " s";
        LogStopping(logger, seconds, Uploads(uploads.InFlight));
        if (timeout == Timeout.InfiniteTimeSpan)
        {
            return;
        }

        lock (_lock)
        {
            if (!_disposed)
            {
                _cut = TimeProvider.System.CreateTimer(static state => ((StoppingUploads)state!).Cut(), this, CutAfter(timeout), Timeout.InfiniteTimeSpan);
            }
        }
    }

    private void Cut()
    {
        var cut = uploads.CutAll();
        if (cut > 0)
        {
            LogCutting(logger, Uploads(cut));
        }
    }

    private static string Uploads(int count) => count == 1 ? "1 upload" : count.ToString(CultureInfo.InvariantCulture) + " uploads";

    public void Dispose()
    {
        lock (_lock)
        {
            _disposed = true;
            _stopping.Dispose();
            _cut?.Dispose();
        }
    }

    [LoggerMessage(1, LogLevel.Information, "stopping: waiting {Wait} for requests in flight ({Uploads})")]
    private static partial void LogStopping(ILogger logger, string wait, string uploads);

    [LoggerMessage(2, LogLevel.Warning, "stopping: {Uploads} still in flight cut, each answered 503")]
    private static partial void LogCutting(ILogger logger, string uploads);
}
