using Freight.Resumable;
using Freight.Storage;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Freight.AspNetCore.Stores;

/// <summary>
/// Makes the file-system stores as the host starts (<see cref="IHostedLifecycleService.StartingAsync"/>: after the
/// options are validated, before any hosted service starts, Kestrel included), so a directory that cannot be made
/// stops the host there with one <see cref="Microsoft.Extensions.Options.OptionsValidationException"/> naming it
/// (<see cref="UnusableDirectory"/>), and abandoned temp files are swept before the first request. Without it the
/// files API alone would make its store at its first request.
/// </summary>
internal sealed class FileSystemStoreStartup(IServiceProvider services) : IHostedLifecycleService
{
    public Task StartingAsync(CancellationToken cancellationToken)
    {
        services.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files);
        services.GetRequiredService<IResumableUploadStore>();
        return Task.CompletedTask;
    }

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
