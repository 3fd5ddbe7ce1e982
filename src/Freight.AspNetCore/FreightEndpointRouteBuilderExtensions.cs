using Freight.AspNetCore;
using Freight.AspNetCore.Cors;
using Freight.AspNetCore.Errors;
using Freight.AspNetCore.Files;
using Freight.AspNetCore.Tus;
using Freight.Storage;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;

namespace Microsoft.AspNetCore.Builder;

/// <summary>Maps Freight's endpoints at the prefixes the app chooses: <c>app.MapFreightFiles("/files")</c>, <c>app.MapFreightTus("/tus")</c>.</summary>
public static class FreightEndpointRouteBuilderExtensions
{
    /// <summary>
    /// The files API at <paramref name="prefix"/>: PUT, GET, HEAD, DELETE <c>{prefix}/{path}</c>, POST multipart and the
    /// listing; Location headers follow the prefix. Errors answer as problem+json. Needs <c>AddFreightFiles</c> and a store.
    /// </summary>
    public static RouteGroupBuilder MapFreightFiles(this IEndpointRouteBuilder endpoints, string prefix = "/files")
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        var routePrefix = FreightRoutes.Prefix(prefix, nameof(prefix));
        Require<FilesAccess>(endpoints, "MapFreightFiles", "AddFreightFiles()");
        RequireStore(endpoints, "MapFreightFiles");
        return WithProblems(FilesEndpoints.Map(endpoints, routePrefix));
    }

    /// <summary>
    /// tus 1.0 at <paramref name="prefix"/> (create with a POST to it; uploads at <c>{prefix}/{id}</c>); finished uploads
    /// become files of the files store. Needs <c>AddFreightFiles</c>, <c>AddFreightTus</c> and a store.
    /// </summary>
    public static RouteGroupBuilder MapFreightTus(this IEndpointRouteBuilder endpoints, string prefix = "/tus")
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        var routePrefix = FreightRoutes.Prefix(prefix, nameof(prefix));
        Require<FilesAccess>(endpoints, "MapFreightTus", "AddFreightFiles()");
        Require<TusUploads>(endpoints, "MapFreightTus", "AddFreightTus()");
        RequireStore(endpoints, "MapFreightTus");
        return WithProblems(TusEndpoints.Map(endpoints, routePrefix));
    }

    /// <summary>
    /// Answers every request error of the whole app as problem+json, as the files and tus endpoints do (errors raised
    /// before routing, e.g. by a middleware, included), and what routing answers without a body: an unknown route's
    /// 404, a method the route lacks (405) and a Content-Type it does not accept (415, e.g. a <c>FreightMultipart</c>
    /// route sent something else), each logged once. Add it first. The files and tus endpoints answer their own errors
    /// so without it.
    /// </summary>
    public static IApplicationBuilder UseFreightProblems(this IApplicationBuilder app)
    {
        ArgumentNullException.ThrowIfNull(app);
        Require<ProblemMiddleware>(app.ApplicationServices, "UseFreightProblems", "AddFreightFiles()");
        var problems = Singleton<ProblemMiddleware>(app.ApplicationServices);
        return app.Use(next => context => problems().InvokeAsync(context, next));
    }

    /// <summary>
    /// <c>UseCors()</c> (with <paramref name="policyName"/>, or the default policy) and what its answers lack for a page
    /// on another origin: <c>Vary: Origin</c> on every answer when the policy names its origins (the CORS middleware
    /// sends it only with two or more, and not to a request without <c>Origin</c>, so a browser reused a tab's cached
    /// copy without CORS headers for the page's fetch, which failed), and <c>Timing-Allow-Origin</c> for the origins it
    /// allows (Resource Timing shows the page its requests). Use it where <c>UseCors()</c> would go, after
    /// <c>UseFreightProblems()</c>; the policy is yours, with <c>WithFreightHeaders()</c>.
    /// </summary>
    public static IApplicationBuilder UseFreightCors(this IApplicationBuilder app, string? policyName = null)
    {
        ArgumentNullException.ThrowIfNull(app);
        var headers = new CorsAnswerHeaders(app.ApplicationServices, policyName);
        app.Use(next => context =>
        {
            headers.Register(context);
            return next(context);
        });
        return policyName is null ? app.UseCors() : app.UseCors(policyName);
    }

    /// <summary>Each endpoint of <paramref name="group"/> answers its errors as problem+json.</summary>
    private static RouteGroupBuilder WithProblems(RouteGroupBuilder group)
    {
        ((IEndpointConventionBuilder)group).Add(static endpoint =>
        {
            if (endpoint.RequestDelegate is { } handler)
            {
                var problems = Singleton<ProblemMiddleware>(endpoint.ApplicationServices);
                endpoint.RequestDelegate = context => problems().AnswerErrorsAsync(context, handler);
            }
        });
        return group;
    }

    /// <summary>
    /// A singleton resolved from the app's services on first use (not while the pipeline is built: the host validates
    /// options at start), never through <c>HttpContext.RequestServices</c>, which creates a DI scope for the request:
    /// on a 4 KiB static file that scope was 58 % of the bytes the server allocated per request
    /// (docs/results/2026-11-27-nginx-file-cache.md).
    /// </summary>
    private static Func<TService> Singleton<TService>(IServiceProvider services)
        where TService : notnull
    {
        TService? resolved = default;
        return () => resolved ??= services.GetRequiredService<TService>();
    }

    private static void Require<TService>(IEndpointRouteBuilder endpoints, string call, string registration) =>
        Require<TService>(endpoints.ServiceProvider, call, registration);

    // Registered, not resolved: resolving would read the options before the host validates them at start.
    private static void Require<TService>(IServiceProvider services, string call, string registration)
    {
        if (!services.GetRequiredService<IServiceProviderIsService>().IsService(typeof(TService)))
        {
            throw new InvalidOperationException($"{call} needs builder.Services.{registration} first.");
        }
    }

    private static void RequireStore(IEndpointRouteBuilder endpoints, string call)
    {
        if (!endpoints.ServiceProvider.GetRequiredService<IServiceProviderIsKeyedService>().IsKeyedService(typeof(IObjectStore), ObjectStoreKeys.Files))
        {
            throw new InvalidOperationException(
                $"{call} needs a store first: builder.Services.AddFreightFileSystemStore(...), AddFreightMemoryStore() or AddFreightS3Store(...).");
        }
    }
}
