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
        // Made when the host starts (FileSystemStoreStartup), before it listens: a directory that cannot be made is
        // refused then, naming its key, as an invalid option is, not with an IOException at the first request.
        var rootKey = configSectionPath + ":" + nameof(FreightFileSystemOptions.RootDirectory);
        services.AddKeyedSingleton<IObjectStore>(ObjectStoreKeys.Files, (provider, _) =>
        {
            var options = provider.GetRequiredService<IOptions<FreightFileSystemOptions>>().Value;
            var store = UnusableDirectory.Open(options.RootDirectorySetting ?? DirectorySetting.OfApp(rootKey), options.RootDirectory,
                root => new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = root, FlushToDisk = options.FlushToDisk }));
            // Writes a crash interrupted, swept before the first request can see the directory.
            store.DeleteAbandonedTempFiles();
            return store;
        });
        var uploadsKey = configSectionPath + ":" + nameof(FreightFileSystemOptions.UploadsDirectory);
        services.AddSingleton<IResumableUploadStore>(provider =>
        {
            var options = provider.GetRequiredService<IOptions<FreightFileSystemOptions>>().Value;
            var files = provider.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files);
            return UnusableDirectory.Open(options.UploadsDirectorySetting ?? DirectorySetting.OfApp(uploadsKey), options.EffectiveUploadsDirectory,
                uploads => new FileSystemResumableUploadStore(uploads, files, options.FlushToDisk));
        });
        services.AddHostedService<FileSystemStoreStartup>();
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
