using Freight.Resumable;
using Freight.Storage;
using Freight.Storage.S3;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>The S3 store for Freight's files API and tus: <c>builder.Services.AddFreightS3Store()</c> instead of the file-system store.</summary>
public static class FreightS3ServiceCollectionExtensions
{
    /// <summary>Files in an S3 bucket, options bound from <see cref="S3StoreOptions.SectionName"/>; then <paramref name="configure"/>.</summary>
    public static IServiceCollection AddFreightS3Store(this IServiceCollection services, Action<S3StoreOptions>? configure = null) =>
        services.AddFreightS3Store(S3StoreOptions.SectionName, configure);

    /// <summary>
    /// Files in an S3 bucket, options bound from the section <paramref name="configSectionPath"/>; then
    /// <paramref name="configure"/>. Unfinished tus uploads wait in the bucket too, so any node can continue them.
    /// </summary>
    public static IServiceCollection AddFreightS3Store(this IServiceCollection services, string configSectionPath, Action<S3StoreOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrWhiteSpace(configSectionPath);
        var options = services.AddOptions<S3StoreOptions>().BindConfiguration(configSectionPath);
        if (configure is not null)
        {
            options.Configure(configure);
        }

        options.ValidateOnStart();
        services.AddSingleton<IValidateOptions<S3StoreOptions>>(new S3StoreOptionsValidator(configSectionPath));
        services.AddKeyedSingleton<IObjectStore>(ObjectStoreKeys.Files, static (provider, _) => new S3ObjectStore(provider.GetRequiredService<IOptions<S3StoreOptions>>().Value));
        // Upload state in the bucket, never in this node: any node continues any upload.
        services.AddSingleton<IResumableUploadStore>(static provider => new S3ResumableUploadStore((S3ObjectStore)provider.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files)));
        // The S3 client's exceptions answer 502, not 500.
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IStoreFailureClassifier, S3StoreFailures>());
        return services;
    }

    private sealed class S3StoreOptionsValidator(string section) : IValidateOptions<S3StoreOptions>
    {
        public ValidateOptionsResult Validate(string? name, S3StoreOptions options)
        {
            if (name != Options.Options.DefaultName)
            {
                return ValidateOptionsResult.Skip;
            }

            var errors = new List<string>();
            options.Validate(errors, section);
            return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
        }
    }
}
