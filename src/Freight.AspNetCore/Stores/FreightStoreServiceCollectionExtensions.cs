using Freight.AspNetCore.Stores;
using Freight.Resumable;
using Freight.Storage;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Where the files API and tus keep bytes: one of these per app (the S3 store's <c>AddFreightS3Store</c> is in the
/// Freight.Storage.S3 package). The files store is the keyed service <see cref="ObjectStoreKeys.Files"/>; the
/// resumable-upload store, paired with it, is <see cref="IResumableUploadStore"/>.
/// </summary>
public static class FreightStoreServiceCollectionExtensions
{
    /// <summary>Files on the local file system, options bound from <see cref="FreightFileSystemOptions.SectionName"/>; then <paramref name="configure"/>.</summary>
    public static IServiceCollection AddFreightFileSystemStore(this IServiceCollection services, Action<FreightFileSystemOptions>? configure = null) =>
        services.AddFreightFileSystemStore(FreightFileSystemOptions.SectionName, configure);

    /// <summary>Files on the local file system, options bound from the section <paramref name="configSectionPath"/>; then <paramref name="configure"/>.</summary>
    public static IServiceCollection AddFreightFileSystemStore(this IServiceCollection services, string configSectionPath, Action<FreightFileSystemOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrWhiteSpace(configSectionPath);
        services.AddValidatedOptions(configSectionPath, configure, static (options, section, errors) => options.Validate(section, errors));
        services.AddKeyedSingleton<IObjectStore>(ObjectStoreKeys.Files, static (provider, _) =>
        {
            var options = provider.GetRequiredService<IOptions<FreightFileSystemOptions>>().Value;
            var store = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = options.RootDirectory, FlushToDisk = options.FlushToDisk });
            // Writes a crash interrupted, swept before the first request can see the directory.
            store.DeleteAbandonedTempFiles();
            return store;
        });
        services.AddSingleton<IResumableUploadStore>(static provider =>
        {
            var options = provider.GetRequiredService<IOptions<FreightFileSystemOptions>>().Value;
            return new FileSystemResumableUploadStore(options.EffectiveUploadsDirectory, provider.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files), options.FlushToDisk);
        });
        return services;
    }

    /// <summary>Files in memory, gone when the app stops: for tests and demos.</summary>
    public static IServiceCollection AddFreightMemoryStore(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.AddKeyedSingleton<IObjectStore>(ObjectStoreKeys.Files, static (_, _) => new MemoryObjectStore());
        services.AddSingleton<IResumableUploadStore>(static provider => new MemoryResumableUploadStore(provider.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files)));
        return services;
    }
}
