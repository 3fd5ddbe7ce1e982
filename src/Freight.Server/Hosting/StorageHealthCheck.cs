using Freight.AspNetCore.Tus;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Options;

namespace Freight.Server.Hosting;

/// <summary>
/// <c>GET /healthz</c>'s one check, for a load balancer or an orchestrator's probe: the server answers, and with the
/// file-system store its files and tus directories are there, with more free space than tus keeps in reserve
/// (<c>Freight:Tus:MinFreeBytes</c>; under it tus refuses new uploads with 507, so the server is degraded). With the S3 or memory
/// store it says only that the server answers: asking the bucket on every probe would cost a request to S3 each time.
/// </summary>
internal sealed class StorageHealthCheck(FreightServerOptions options, IOptions<TusOptions> tus) : IHealthCheck
{
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        if (options.Files.IsMemoryStore || options.Files.IsS3Store)
        {
            return Task.FromResult(HealthCheckResult.Healthy($"serving; the {options.Files.Store} store is not checked"));
        }

        foreach (var directory in new[] { options.FilesDirectory, options.TusDirectory })
        {
            if (!Directory.Exists(directory))
            {
                return Task.FromResult(HealthCheckResult.Unhealthy($"{directory} is gone"));
            }

            var free = new DriveInfo(Path.GetFullPath(directory)).AvailableFreeSpace;
            if (free < tus.Value.MinFreeBytes)
            {
                return Task.FromResult(HealthCheckResult.Degraded($"{free} bytes free for {directory}, under Freight:Tus:MinFreeBytes ({tus.Value.MinFreeBytes})"));
            }
        }

        return Task.FromResult(HealthCheckResult.Healthy());
    }
}
