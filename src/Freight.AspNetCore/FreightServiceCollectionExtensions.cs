using Freight.AspNetCore;
using Freight.AspNetCore.Errors;
using Freight.AspNetCore.Files;
using Freight.AspNetCore.Hosting;
using Freight.AspNetCore.Tus;
using Freight.Digests;
using Freight.Multipart;
using Freight.Resumable;
using Freight.Storage;
using Freight.Telemetry;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Registers Freight's files API and tus endpoint, in ASP.NET Core's style:
/// <c>builder.Services.AddFreightFiles().AddFreightTus().AddFreightFileSystemStore(o => o.RootDirectory = "data")</c>,
/// then <c>app.MapFreightFiles("/files")</c> and <c>app.MapFreightTus("/tus")</c>. Options are bound from configuration
/// and validated when the host starts: an invalid one stops it with a message naming the key.
/// </summary>
public static class FreightServiceCollectionExtensions
{
    /// <summary>The files API's services, its options bound from <see cref="FilesOptions.SectionName"/>; then <paramref name="configure"/>.</summary>
    public static IServiceCollection AddFreightFiles(this IServiceCollection services, Action<FilesOptions>? configure = null) =>
        services.AddFreightFiles(FilesOptions.SectionName, configure);

    /// <summary>The files API's services, its options bound from the section <paramref name="configSectionPath"/>; then <paramref name="configure"/>.</summary>
    public static IServiceCollection AddFreightFiles(this IServiceCollection services, string configSectionPath, Action<FilesOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrWhiteSpace(configSectionPath);
        services.AddValidatedOptions(configSectionPath, configure, static (options, section, errors) => options.Validate(section, errors));
        services.TryAddSingleton(static provider => provider.GetRequiredService<IOptions<FilesOptions>>().Value);
        services.TryAddSingleton<FilesAccess>();
        services.TryAddSingleton<UploadLimiter>();
        if (!services.Any(static service => service.ServiceType == typeof(StoppingUploads)))
        {
            // The host's stop: logged when it begins, and the uploads still running just before its timeout answered 503.
            services.AddSingleton<StoppingUploads>();
            services.AddHostedService(static provider => provider.GetRequiredService<StoppingUploads>());
        }

        services.TryAddSingleton(static provider => UploadSettings.From(provider));
        // The parser's defaults, unless the app registered limits of its own first.
        services.TryAddSingleton(new MultipartLimits());
        // Kestrel's server-wide minimum body rate (FilesOptions.MinUploadBytesPerSecond); Freight's uploads on HTTP/2 leave
        // it for Freight's per-stream one (UploadLimiter.Follow).
        services.AddOptions<KestrelServerOptions>().Configure<IServiceProvider>(static (kestrel, provider) =>
        {
            try
            {
                kestrel.Limits.MinRequestBodyDataRate = provider.GetRequiredService<IOptions<FilesOptions>>().Value.MinUploadRate;
            }
            catch (Exception invalid) when (invalid is OptionsValidationException or InvalidOperationException)
            {
                // The host builds Kestrel's options before it starts: an invalid files option is left for ValidateOnStart,
                // which stops the host naming the key, instead of failing the build with a stack of Kestrel's.
            }
        });
        services.AddFreightCommon();
        return services;
    }

    /// <summary>The tus endpoint's services (needs <see cref="AddFreightFiles(IServiceCollection, Action{FilesOptions}?)"/>), options from <see cref="TusOptions.SectionName"/>.</summary>
    public static IServiceCollection AddFreightTus(this IServiceCollection services, Action<TusOptions>? configure = null) =>
        services.AddFreightTus(TusOptions.SectionName, configure);

    /// <summary>The tus endpoint's services (needs <c>AddFreightFiles</c>: its tokens, limits and store), options from <paramref name="configSectionPath"/>.</summary>
    public static IServiceCollection AddFreightTus(this IServiceCollection services, string configSectionPath, Action<TusOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrWhiteSpace(configSectionPath);
        services.AddValidatedOptions(configSectionPath, configure, static (options, section, errors) => options.Validate(section, errors));
        services.TryAddSingleton(static provider => provider.GetRequiredService<IOptions<TusOptions>>().Value);
        services.TryAddSingleton<ResumableUploadLocks>();
        services.TryAddSingleton<TusQuota>();
        // XXH3-128 always (the ETag); SHA-256 too when the files API keeps it for every file.
        services.TryAddSingleton(static provider => new RunningDigests(provider.GetRequiredService<FilesOptions>().AlwaysComputeSha256 ? [DigestAlgorithm.Sha256] : []));
        services.TryAddSingleton(static provider =>
        {
            var tus = provider.GetRequiredService<TusOptions>();
            var files = provider.GetRequiredService<FilesOptions>();
            // Unset, the largest upload is the files API's largest file, else the largest request body the server takes.
            var maxUploadBytes = tus.MaxUploadBytes > 0 ? tus.MaxUploadBytes
                : files.MaxFileBytes > 0 ? files.MaxFileBytes
                : provider.GetRequiredService<IOptions<KestrelServerOptions>>().Value.Limits.MaxRequestBodySize ?? long.MaxValue;
            return new TusUploads(
                provider.GetRequiredService<IResumableUploadStore>(),
                provider.GetRequiredService<ResumableUploadLocks>(),
                provider.GetRequiredService<RunningDigests>(),
                tus,
                provider.GetRequiredService<FilesAccess>(),
                provider.GetRequiredService<UploadLimiter>(),
                provider.GetRequiredService<TusQuota>(),
                provider.GetRequiredService<FreightRoutes>(),
                maxUploadBytes,
                provider.GetRequiredService<TimeProvider>());
        });
        services.AddHostedService<TusExpirySweeper>();
        services.AddFreightCommon();
        return services;
    }

    private static void AddFreightCommon(this IServiceCollection services)
    {
        services.TryAddSingleton<FreightRoutes>();
        services.TryAddSingleton<ProblemMiddleware>();
        // Resolved at the first request that needs the store, whichever store registration came before or after this.
        services.TryAddSingleton(static provider => new FilesStore(InstrumentedObjectStore.Instrument(provider.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files))));
        services.TryAddSingleton(TimeProvider.System);
        services.AddProblemDetails();
    }

    /// <summary>Binds <typeparamref name="TOptions"/> from <paramref name="section"/>, applies <paramref name="configure"/>, validates at start naming the keys.</summary>
    internal static void AddValidatedOptions<TOptions>(this IServiceCollection services, string section, Action<TOptions>? configure, Action<TOptions, string, List<string>> validate)
        where TOptions : class
    {
        var options = services.AddOptions<TOptions>().BindConfiguration(section);
        if (configure is not null)
        {
            options.Configure(configure);
        }

        options.ValidateOnStart();
        services.AddSingleton<IValidateOptions<TOptions>>(provider => new SectionValidator<TOptions>(section, validate, provider.GetService<IConfiguration>()));
    }
}
