using Freight.AspNetCore.Tus;
using Freight.Resumable;
using Freight.Storage;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Freight.Server.Hosting;

/// <summary>
/// <c>GET /healthz</c>'s one check, for a load balancer or an orchestrator's probe. With the file-system store: its
/// files and tus directories are still at their paths (the stores hold them open: a directory moved away would take
/// writes no one finds), take a file (a probe file created and deleted, at most every <see cref="WriteProbeInterval"/>),
/// and have room: under <see cref="FloorBytes"/> free no upload fits, Unhealthy; under tus's reserve
/// (<c>Freight:Tus:MinFreeBytes</c>) tus refuses new uploads with 507, Degraded. With the S3 or memory store it says
/// only that the server answers: asking the bucket on every probe would cost a request to S3 each time.
/// One instance for the host: it remembers the last write probe and the state it last logged, and logs each change
/// of state once (ASP.NET Core's own line for every probe not Healthy is off in serve).
/// </summary>
internal sealed partial class StorageHealthCheck(FreightServerOptions options, IOptions<TusOptions> tus, IServiceProvider services, ILogger<StorageHealthCheck> logger)
    : IHealthCheck
{
    /// <summary>Free space under which the check says Unhealthy: every PUT, multipart POST and tus PATCH would get 507.</summary>
    public const long FloorBytes = 1024 * 1024;

    private readonly Lock _gate = new();
    private long _lastWriteProbe;
    private string? _writeFailure;
    private HealthStatus _logged = HealthStatus.Healthy;

    /// <summary>
    /// How often the directories are written to (10 s): a probe every 5 s from two probes (liveness and readiness) then
    /// costs one create and one delete per directory every 10 s, and a volume turned read-only is seen within 10 s
    /// (each upload meanwhile gets its own 503). The rest of the check (statx, statvfs) runs on every probe. Tests set it to 0.
    /// </summary>
    internal TimeSpan WriteProbeInterval { get; set; } = TimeSpan.FromSeconds(10);

    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        if (options.Files.IsMemoryStore || options.Files.IsS3Store)
        {
            return Task.FromResult(HealthCheckResult.Healthy($"serving; the {options.Files.Store} store is not checked"));
        }

        lock (_gate)
        {
            HealthCheckResult result;
            try
            {
                result = Check();
            }
            catch (Exception failed)
            {
                // Logged here, once, as any other change: ASP.NET Core's line for a throwing check is off in serve.
                result = HealthCheckResult.Unhealthy($"the check failed: {failed.Message}");
            }

            LogIfChanged(result);
            return Task.FromResult(result);
        }
    }

    private HealthCheckResult Check()
    {
        var files = services.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files) as FileSystemObjectStore;
        var uploads = services.GetRequiredService<IResumableUploadStore>() as FileSystemResumableUploadStore;
        var probes = new (string Directory, Action ThrowIfMoved, Action ProbeWrite)[]
        {
            (options.FilesDirectory, () => files?.ThrowIfMoved(), () => files?.ProbeWrite()),
            (options.TusDirectory, () => uploads?.ThrowIfMoved(), () => uploads?.ProbeWrite()),
        };
        var probeWrites = _lastWriteProbe == 0 || System.Diagnostics.Stopwatch.GetElapsedTime(_lastWriteProbe) >= WriteProbeInterval;
        if (probeWrites)
        {
            _writeFailure = null;
            _lastWriteProbe = System.Diagnostics.Stopwatch.GetTimestamp();
        }

        foreach (var (directory, throwIfMoved, probeWrite) in probes)
        {
            if (!Directory.Exists(directory))
            {
                return HealthCheckResult.Unhealthy($"{directory} is gone");
            }

            try
            {
                // Every probe (a statx): the answer follows the directory's return at once.
                throwIfMoved();
            }
            catch (StoreDirectoryMovedException moved)
            {
                return HealthCheckResult.Unhealthy(moved.Message);
            }

            try
            {
                if (probeWrites)
                {
                    probeWrite();
                }
            }
            catch (Exception unwritable) when (unwritable is IOException or UnauthorizedAccessException && unwritable is not StoreDirectoryMovedException && !OutOfSpace.Is(unwritable))
            {
                // Kept until the next write probe. A full volume is told by its free space, below.
                _writeFailure ??= $"{directory} cannot be written: {unwritable.Message}";
            }

            if (_writeFailure is not null)
            {
                return HealthCheckResult.Unhealthy(_writeFailure);
            }

            var free = new DriveInfo(Path.GetFullPath(directory)).AvailableFreeSpace;
            if (free < FloorBytes)
            {
                return HealthCheckResult.Unhealthy($"{free} bytes free for {directory}, under 1 MiB: uploads get 507");
            }

            if (free < tus.Value.MinFreeBytes)
            {
                return HealthCheckResult.Degraded($"{free} bytes free for {directory}, under Freight:Tus:MinFreeBytes ({tus.Value.MinFreeBytes})");
            }
        }

        return HealthCheckResult.Healthy();
    }

    private void LogIfChanged(HealthCheckResult result)
    {
        if (result.Status == _logged)
        {
            return;
        }

        if (result.Status == HealthStatus.Healthy)
        {
            LogRecovered(logger, _logged);
        }
        else
        {
            LogTurned(logger, result.Status == HealthStatus.Unhealthy ? LogLevel.Error : LogLevel.Warning, result.Status, result.Description ?? "");
        }

        _logged = result.Status;
    }

    [LoggerMessage(EventId = 1, Message = "health: {Status}, {Reason} (logged once; the next line says when it changes)")]
    private static partial void LogTurned(ILogger logger, LogLevel level, HealthStatus status, string reason);

    [LoggerMessage(2, LogLevel.Information, "health: Healthy again (was {Previous})")]
    private static partial void LogRecovered(ILogger logger, HealthStatus previous);
}
