using System.Security.Cryptography.X509Certificates;
using Freight.AspNetCore.Stores;
using Freight.Resumable;
using Freight.Server.Lab;
using Freight.Storage;
using Freight.Storage.S3;
using Freight.Transport;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Freight.Server.Hosting;

/// <summary>
/// <c>freight serve</c>: Kestrel on the configured addresses (HTTP/1.1 and HTTP/2; ALPN on TLS with the certificate
/// file <c>Kestrel:Certificates:Default</c> names, else one made in memory at start), the lab endpoints, and the
/// request-error policy.
/// </summary>
public sealed class FreightServer : IAsyncDisposable
{
    private readonly List<ListenOptions> _h2cListeners;

    private FreightServer(WebApplication app, FreightServerOptions options, X509Certificate2? certificate, bool certificateFromFile, List<ListenOptions> h2cListeners)
    {
        CertificateFromFile = certificateFromFile;
        _h2cListeners = h2cListeners;
        App = app;
        Options = options;
        Certificate = certificate;
    }

    public WebApplication App { get; }

    /// <summary>Whether <see cref="Certificate"/> is the operator's file rather than one made in memory.</summary>
    public bool CertificateFromFile { get; }

    public FreightServerOptions Options { get; }

    /// <summary>The HTTPS certificate (the file <c>Kestrel:Certificates:Default</c> names, else one made in memory), when an https:// address is configured.</summary>
    public X509Certificate2? Certificate { get; }

    /// <summary>The bound addresses (actual ports), once started; cleartext HTTP/2 ones as <c>h2c://</c>.</summary>
    public IReadOnlyList<string> Urls =>
        App.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.Select(H2cScheme).ToList();

    /// <summary>Kestrel names every cleartext listener http://; an h2c one (bound port known once started) says h2c://.</summary>
    private string H2cScheme(string url) =>
        _h2cListeners.Exists(listen => url == $"http://{listen.IPEndPoint}") ? ListenAddress.H2cScheme + url["http".Length..] : url;

    /// <summary>
    /// Builds the server from <paramref name="args"/> (and appsettings.json, FREIGHT_ variables).
    /// Throws <see cref="OptionsValidationException"/> listing every invalid option.
    /// </summary>
    public static FreightServer Create(string[] args, Action<WebApplicationBuilder>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (FreightConfiguration.NotSettings(args) is { Count: > 0 } notSettings)
        {
            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), notSettings);
        }

        WebApplicationBuilder builder;
        try
        {
            builder = WebApplication.CreateBuilder(new WebApplicationOptions { ContentRootPath = AppContext.BaseDirectory });
        }
        catch (InvalidDataException unreadable)
        {
            // The binary folder's appsettings.json, read by the host itself: one line naming it, as the working directory's.
            throw FreightConfiguration.NotJson(unreadable);
        }

        builder.Configuration.AddWorkingDirectoryFiles(builder.Environment.ContentRootPath, builder.Environment.EnvironmentName);
        builder.Configuration.AddFreightSources(args);
        configure?.Invoke(builder);

        // What the binder would drop without a word (a value on a list key, a key no option binds) is refused first.
        var errors = new List<string>();
        FreightConfiguration.CheckFreightSection(builder.Configuration, errors);
        LoggingSection.Check(builder.Configuration, errors);
        FreightServerOptions options;
        var bound = true;
        try
        {
            options = builder.Configuration.GetSection(FreightServerOptions.SectionName).Get<FreightServerOptions>() ?? new FreightServerOptions();
        }
        catch (InvalidOperationException) when (errors.Count > 0)
        {
            // A value of the wrong type for its option, e.g. --max-body-bytes lots: refused by name above. The defaults
            // stand in so that every other option is still checked.
            options = new FreightServerOptions();
            bound = false;
        }
        catch (InvalidOperationException unbindable)
        {
            var reason = unbindable.InnerException is { } inner ? $"{unbindable.Message} {inner.Message}" : unbindable.Message;
            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), [reason]);
        }

        var kestrelLimits = KestrelLimitsSection.Read(builder.Configuration, out var kestrelErrors);
        errors.AddRange(options.Validate().Concat(kestrelErrors).Concat(KestrelSection.NotRead(builder.Configuration)));
        // Read when an https:// address needs it; its other keys are checked whenever they are set: Kestrel's own loader
        // reads that section at start too, and would throw its stack for what it cannot use.
        var wantsHttps = ListenAddress.SplitUrls(options.Urls).Any(url => ListenAddress.TryParse(url, out var address, out _) && address!.Https);
        // A certificate file with no https:// address to present it would go unused without a word: refused, as other
        // settings that do nothing are. An empty Path (--Kestrel:Certificates:Default:Path "") names none.
        var certificatePath = builder.Configuration[ServerCertificate.Section + ":Path"];
        X509Certificate2? certificate = null;
        if (!wantsHttps && !string.IsNullOrEmpty(certificatePath))
        {
            if (bound)
            {
                errors.Add($"{ServerCertificate.Section}:Path '{certificatePath}' names a certificate but no --urls address is https://: add one (--urls \"http://…;https://…\"), or leave the certificate out.");
            }
        }
        else if (wantsHttps || builder.Configuration.GetSection(ServerCertificate.Section).GetChildren().Any())
        {
            certificate = ServerCertificate.Load(builder.Configuration, errors);
        }

        if (errors.Count > 0)
        {
            certificate?.Dispose();
            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), errors);
        }

        if (!wantsHttps)
        {
            certificate?.Dispose();
            certificate = null;
        }

        var configured = ListenAddress.SplitUrls(options.Urls).Select(url => (Url: url, Address: ListenAddress.TryParse(url, out var address, out _) ? address! : throw new InvalidOperationException(url))).ToList();
        var addresses = configured.ConvertAll(each => each.Address);
        var h2cListeners = new List<ListenOptions>();

        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            kestrelLimits.ApplyTo(kestrel.Limits);
            kestrel.Limits.MaxRequestBodySize = options.MaxRequestBodyBytes;
            kestrel.Limits.Http2.InitialConnectionWindowSize = options.Http2.InitialConnectionWindowBytes;
            kestrel.Limits.Http2.InitialStreamWindowSize = options.Http2.InitialStreamWindowBytes;
            kestrel.Limits.Http2.MaxFrameSize = options.Http2.MaxFrameBytes;
            foreach (var address in addresses)
            {
                kestrel.Listen(address.Address, address.Port, listen =>
                {
                    // On TLS, ALPN picks h2 or http/1.1. On cleartext Kestrel cannot offer both on one port
                    // (no negotiation), so http:// addresses speak HTTP/1.1 and h2c:// ones HTTP/2 only.
                    listen.Protocols = address.Https ? HttpProtocols.Http1AndHttp2 : address.H2c ? HttpProtocols.Http2 : HttpProtocols.Http1;
                    if (address.H2c)
                    {
                        h2cListeners.Add(listen);
                    }

                    if (address.Https)
                    {
                        listen.UseFreightHttps(certificate!, options.Tls);
                    }
                    else if (options.SendFile)
                    {
                        // It sends what Kestrel writes, and file bodies with sendfile(2) (docs/server.md). Only the
                        // Content-Length scan (AddFreightStrictContentLength, the endpoint defaults) is outside it.
                        listen.Use(Freight.Downloads.SendFileConnections.Use);
                    }
                });
            }
        });

        builder.Services.Configure<FormOptions>(form =>
        {
            form.MultipartBodyLengthLimit = options.MaxRequestBodyBytes;
        });
        builder.Services.AddSingleton(Microsoft.Extensions.Options.Options.Create(options));
        builder.Services.Configure<HostOptions>(host => host.ShutdownTimeout = options.ShutdownTimeout);
        // The lab's store (its ?sink=file uploads) at the data directory's root; the files API has its own (keyed).
        builder.Services.AddSingleton<IObjectStore>(_ =>
        {
            var store = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = options.DataDirectory, FlushToDisk = options.FlushToDisk });
            store.DeleteAbandonedTempFiles();
            // And the lab's temp files of before they were named as the stores' are.
            LabLegacyTempFiles.Delete(options.DataDirectory);
            return store;
        });
        // Freight:Multipart: the parser's limits for the files API's POST and the lab's multipart variants.
        builder.Services.AddSingleton(options.Multipart.ToLimits());

        // The files API and tus, registered as any app registers them (Freight:Files, Freight:Tus, Freight:S3), and the
        // check of an HTTP/1.1 Content-Length Kestrel would read with a sign.
        builder.Services.AddFreightStrictContentLength();
        builder.Services.AddFreightFiles();
        builder.Services.AddFreightTus();
        if (options.CorsOrigins.Count > 0)
        {
            builder.Services.AddCors(cors => cors.AddDefaultPolicy(policy =>
                (options.CorsOrigins.Contains(CorsOrigin.AnyOrigin) ? policy.AllowAnyOrigin() : policy.WithOrigins(CorsOrigin.Normalize(options.CorsOrigins))).WithFreightHeaders()));
        }

        // One check for the host's life: it remembers its last write probe and the state it last logged.
        builder.Services.AddSingleton(provider => ActivatorUtilities.CreateInstance<StorageHealthCheck>(provider, options));
        builder.Services.AddHealthChecks().AddCheck<StorageHealthCheck>("storage");
        if (options.Files.IsMemoryStore)
        {
            builder.Services.AddFreightMemoryStore();
        }
        else if (options.Files.IsS3Store)
        {
            builder.Services.AddFreightS3Store();
        }
        else
        {
            builder.Services.AddFreightFileSystemStore(store =>
            {
                store.RootDirectory = options.FilesDirectory;
                store.UploadsDirectory = options.TusDirectory;
                store.FlushToDisk = options.FlushToDisk;
                // A directory the store cannot make is refused under serve's own keys and options (exit 2).
                store.RootDirectorySetting = DirectorySetting.OfServe("Freight:Files:Directory", "--Freight:Files:Directory");
                store.UploadsDirectorySetting = DirectorySetting.OfServe("Freight:Tus:Directory", "--Freight:Tus:Directory");
            });
        }

        builder.Services.AddSingleton<LabPayloads>();
        builder.Services.AddSingleton<LabStaticFiles>();
        builder.Services.AddSingleton<LabStaticFileProvider>();
        builder.Services.AddSingleton(new Freight.Downloads.FileCache(options.FileCache));
        builder.Services.AddSingleton<Lab.Json.LabJsonGates>();
        // Started in StartAsync; the container stops it (Dispose joins its thread) when the app is disposed.
        builder.Services.AddSingleton<Freight.Lab.Metrics.RuntimeSampler>();
        if (options.TransportBlockBytes > 0)
        {
            // Kestrel's socket transport asks DI for its memory pool factory (.NET 10): larger blocks, larger recv()s.
            builder.Services.AddSingleton<IMemoryPoolFactory<byte>>(new LargeBlockMemoryPoolFactory(
                options.TransportBlockBytes,
                LargeBlockMemoryPool.DefaultMaxPooledBytes,
                options.TransportBulkBlockBytes,
                options.TransportBulkBlockBytes > options.TransportBlockBytes ? options.TransportBulkBlocks : 0));
        }

        // InlineScheduling (off by default): a request's code resumes on the thread that received its bytes.
        builder.Services.Configure<SocketTransportOptions>(transport =>
        {
            transport.UnsafePreferInlineScheduling = options.InlineScheduling;
            transport.CreateBoundListenSocket = new ListenSockets(configured).Bind;
        });
        // The host logs a failed start at Error before it throws: RunAsync prints a refused address (ListenSockets) as
        // one error line and lets anything else through with its stack, so the log would only repeat it, stack and all,
        // on stdout beside the listening: lines. Critical still shows: a background service's failure stopping the host.
        builder.Logging.AddFilter("Microsoft.Extensions.Hosting.Internal.Host", LogLevel.Critical);
        // ASP.NET Core's health checks log every probe that is not Healthy (a Warning or an Error each time: ~35,000
        // lines a day under two probes every 5 s); StorageHealthCheck logs each change of state once, with its reason.
        builder.Logging.AddFilter("Microsoft.Extensions.Diagnostics.HealthChecks", LogLevel.None);
        // MVC's core and model validation for the lab's two study controllers, not AddControllers(): its authorization
        // services make WebApplication put authentication and authorization middleware in front of every request, and
        // Freight has neither to check. They cost ~8 % of the server's CPU on a 4 KiB static file (perf; the
        // before/after in docs/results/2026-11-27-request-overhead.md).
        if (options.Lab)
        {
            builder.Services.AddMvcCore().AddDataAnnotations().AddApplicationPart(typeof(FreightServer).Assembly).AddNewtonsoftJson(json => Lab.Json.LabNewtonsoftSettings.Apply(json.SerializerSettings));
        }

        var app = builder.Build();
        ValidateLibraryOptions(app.Services);
        // First: everything after it, the refusals' log lines included, sees the client behind a trusted proxy.
        ForwardedHeaders.UseFor(app, options.TrustedProxies);
        // Every error as problem+json: the handlers' refusals, and what routing answers alone (404, 405, 415).
        app.UseFreightProblems();
        if (options.CorsOrigins.Count > 0)
        {
            // After the problems, as library.md tells apps: a problem keeps the CORS headers (added as the answer starts).
            app.UseFreightCors();
        }
        if (options.Lab)
        {
            // With tokens set, the lab asks for a write token too: its endpoints write files, stream gigabytes and hold
            // threads for as long as asked (/lab/threads), none of which an anonymous client may do to a guarded server.
            var access = app.Services.GetRequiredService<Freight.AspNetCore.Files.FilesAccess>();
            if (!access.IsOpen)
            {
                app.UseWhen(context => context.Request.Path.StartsWithSegments("/lab"), lab => lab.Use(next => context =>
                    access.Refuses(context, write: true) ? Task.CompletedTask : next(context)));
            }

            WriteLabFiles(app.Services.GetRequiredService<LabStaticFiles>(), options.DataDirectory);
            app.UseLabStaticFiles();
            app.MapLab();
            app.MapControllers();
        }

        app.MapFreightFiles("/files");
        app.MapFreightTus("/tus");
        // Open with tokens set too: a probe carries none, and the answer holds no data (Healthy, Degraded or Unhealthy).
        app.MapHealthChecks("/healthz");
        return new FreightServer(app, options, certificate, certificateFromFile: certificate is not null && !string.IsNullOrEmpty(builder.Configuration[ServerCertificate.Section + ":Path"]), h2cListeners);
    }

    /// <summary>
    /// The library validates its options (Freight:Files, Freight:Tus, Freight:S3) when the host starts; <c>freight serve</c>
    /// refuses them here already, with its own, as one <see cref="OptionsValidationException"/> (exit 2 before a port is bound).
    /// </summary>
    private static void ValidateLibraryOptions(IServiceProvider services)
    {
        try
        {
            services.GetRequiredService<IStartupValidator>().Validate();
        }
        catch (OptionsValidationException invalid)
        {
            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), invalid.Failures);
        }
        catch (AggregateException invalid)
        {
            var failures = new List<string>();
            foreach (var inner in invalid.InnerExceptions)
            {
                failures.AddRange(inner is OptionsValidationException each ? each.Failures : [inner.Message]);
            }

            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), failures);
        }
        catch (InvalidOperationException unbindable)
        {
            // A value of the wrong type for its option, e.g. --Freight:Files:MaxFileBytes lots.
            var reason = unbindable.InnerException is { } inner ? $"{unbindable.Message} {inner.Message}" : unbindable.Message;
            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), [reason]);
        }
    }

    /// <summary>
    /// The lab's files are the first bytes serve writes into the data directory. One it cannot write to (its volume
    /// full, read-only, or the path a file) is refused here as an invalid option is, with what to do about it (exit 2
    /// before a port is bound, not a stack trace); the files written before the one that failed are removed.
    /// </summary>
    private static void WriteLabFiles(LabStaticFiles files, string dataDirectory)
    {
        try
        {
            files.EnsureCreated();
        }
        catch (Exception unwritable) when (UnusableDirectory.Is(unwritable))
        {
            var notFitting = FormattableString.Invariant($"the lab's files ({LabStaticFiles.TotalBytes / (1024.0 * 1024):0.0} MiB)");
            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions),
                [UnusableDirectory.Describe(DirectorySetting.OfServe("Freight:DataDirectory", "--data-dir"), dataDirectory, unwritable, notFitting)]);
        }
    }

    /// <summary>Starts listening; <see cref="Urls"/> then holds the bound addresses.</summary>
    public async Task StartAsync(CancellationToken cancellationToken = default)
    {
        // Resolve the stores now: abandoned temp files are swept before the first request, and a directory the
        // file-system store cannot make (a path through a file, a read-only volume) is refused before a port is bound,
        // as the data directory is: the library's refusal (UnusableDirectory), naming serve's key and option.
        App.Services.GetRequiredService<IObjectStore>();
        var files = App.Services.GetRequiredKeyedService<IObjectStore>(ObjectStoreKeys.Files);
        App.Services.GetRequiredService<IResumableUploadStore>();
        if (files is S3ObjectStore bucket)
        {
            await CheckBucketAsync(bucket, cancellationToken);
        }

        if (Options.Lab)
        {
            // The lab's /lab/metrics: exceptions/s count from here (the runtime keeps no count of its own).
            Freight.Lab.Metrics.ExceptionCounter.Install();
            App.Services.GetRequiredService<Freight.Lab.Metrics.RuntimeSampler>().Start();
        }

        await App.StartAsync(cancellationToken);
    }

    /// <summary>
    /// A bucket that does not exist or refuses the keys is a configuration error: refused at start (exit 2), not
    /// a 502 on every request. An S3 server that cannot be reached yet is logged and waited for by the requests.
    /// </summary>
    private async Task CheckBucketAsync(S3ObjectStore bucket, CancellationToken cancellationToken)
    {
        string? problem;
        try
        {
            problem = await bucket.Connection.BucketProblemAsync(cancellationToken);
        }
        catch (Exception unreachable) when (unreachable is HttpRequestException or IOException or Amazon.Runtime.AmazonServiceException or Amazon.Runtime.AmazonClientException)
        {
            Freight.Telemetry.StoreLog.S3Unreachable(App.Services.GetRequiredService<ILoggerFactory>().CreateLogger<FreightServer>(), unreachable, App.Services.GetRequiredService<IOptions<S3StoreOptions>>().Value.Endpoint);
            return;
        }

        if (problem is not null)
        {
            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), [$"Freight:S3:Bucket: {problem}."]);
        }
    }

    public async ValueTask DisposeAsync()
    {
        await App.StopAsync();
        await App.DisposeAsync();
        Certificate?.Dispose();
    }

    /// <summary>
    /// Runs <c>freight serve</c> until Ctrl+C or SIGTERM: prints <c>listening: URL</c> per address and,
    /// with HTTPS, <c>certificate-sha256: HEX</c> and curl's <c>pinnedpubkey: sha256//BASE64</c>. Returns 2 on invalid options, a directory it cannot write, or an
    /// address it cannot listen on. Its help is <see cref="ServeCommand"/>'s.
    /// </summary>
    public static async Task<int> RunAsync(string[] args, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        FreightServer server;
        try
        {
            server = Create(args);
        }
        catch (OptionsValidationException invalid)
        {
            foreach (var failure in invalid.Failures)
            {
                await error.WriteLineAsync($"error: {failure}");
            }

            return 2;
        }
        catch (FormatException badArguments)
        {
            await error.WriteLineAsync($"error: {badArguments.Message}");
            return 2;
        }

        await using (server)
        {
            try
            {
                await server.StartAsync();
            }
            catch (OptionsValidationException refused)
            {
                foreach (var failure in refused.Failures)
                {
                    await error.WriteLineAsync($"error: {failure}");
                }

                return 2;
            }

            if (server.Certificate is not null)
            {
                await output.WriteLineAsync($"certificate-sha256: {SelfSignedCertificate.Fingerprint(server.Certificate)}");
                await output.WriteLineAsync($"pinnedpubkey: {SelfSignedCertificate.PublicKeyPin(server.Certificate)}");
                if (server.CertificateFromFile)
                {
                    await output.WriteLineAsync($"certificate: {ServerCertificate.Describe(server.Certificate)}");
                }
            }

            foreach (var url in server.Urls)
            {
                await output.WriteLineAsync($"listening: {url}");
            }

            await output.FlushAsync();
            if (server.Options.StopWhenInputCloses)
            {
                _ = StopWhenInputClosesAsync(server.App);
            }

            await server.App.WaitForShutdownAsync();
        }

        return 0;
    }

    private static async Task StopWhenInputClosesAsync(WebApplication app)
    {
        await using var input = Console.OpenStandardInput();
        var buffer = new byte[256];
        while (await input.ReadAsync(buffer) > 0)
        {
        }

        await app.StopAsync();
    }
}
