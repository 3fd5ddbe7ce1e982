using Freight.Downloads;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.StaticFiles;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.FileProviders;
using Microsoft.Net.Http.Headers;

namespace Freight.Server.Lab;

/// <summary>
/// Study 4's small and mid-size files (<see cref="LabStaticFiles"/>) served three ways on one server:
/// <c>/lab/static/staticfiles/{name}</c> by the stock StaticFiles middleware, <c>/lab/static/results-file/{name}</c>
/// by the stock <c>Results.File(path)</c>, and <c>/lab/static/freight/{name}</c> by Freight's download path
/// (<see cref="FileResponder"/>, the code the files API uses). GET and HEAD; each sends Content-Length,
/// Content-Type, ETag and Last-Modified.
/// </summary>
public static class LabStaticEndpoints
{
    public const string StaticFilesPath = "/lab/static/staticfiles";

    private static readonly string[] GetAndHead = [HttpMethods.Get, HttpMethods.Head];

    /// <summary>The stock middleware, as an app would add it; it answers only requests no endpoint matched.</summary>
    public static IApplicationBuilder UseLabStaticFiles(this IApplicationBuilder app)
    {
        ArgumentNullException.ThrowIfNull(app);
        var files = app.ApplicationServices.GetRequiredService<LabStaticFiles>();
        files.EnsureCreated();
        return app.UseStaticFiles(new StaticFileOptions
        {
            RequestPath = StaticFilesPath,
            FileProvider = app.ApplicationServices.GetRequiredService<LabStaticFileProvider>().Provider,
        });
    }

    public static RouteGroupBuilder MapLabStatic(this RouteGroupBuilder lab)
    {
        ArgumentNullException.ThrowIfNull(lab);
        var group = lab.MapGroup("/static");
        var contentTypes = new FileExtensionContentTypeProvider();

        // The stock file result, given the validators an app would compute from FileInfo (the result itself sets none).
        group.MapMethods("/results-file/{name}", GetAndHead, (string name, LabStaticFiles files) =>
        {
            var path = files.PathOf(name);
            var info = path is null ? null : new FileInfo(path);
            if (info is not { Exists: true })
            {
                return Results.NotFound();
            }

            var contentType = contentTypes.TryGetContentType(path!, out var known) ? known : "application/octet-stream";
            var lastModified = new DateTimeOffset(info.LastWriteTimeUtc, TimeSpan.Zero);
            return Results.File(path!, contentType, lastModified: lastModified, entityTag: FileRepresentation.EntityTagFromMetadata(lastModified, info.Length), enableRangeProcessing: true);
        });

        // Freight's path: a plain request delegate (no parameter binding) in front of FileResponder. The
        // singletons are resolved once here: asking RequestServices would create a DI scope per request.
        var services = ((IEndpointRouteBuilder)lab).ServiceProvider;
        var staticFiles = services.GetRequiredService<LabStaticFiles>();
        var cache = services.GetRequiredService<FileCache>();
        group.MapMethods("/freight/{name}", GetAndHead, async context =>
        {
            var path = staticFiles.PathOf(context.Request.RouteValues["name"] as string ?? "");
            if (path is null || !await FileResponder.TrySendAsync(context, cache, path))
            {
                context.Response.StatusCode = StatusCodes.Status404NotFound;
            }
        });

        return group;
    }
}

/// <summary>The stock middleware's file provider over the lab's static directory, disposed with the app.</summary>
public sealed class LabStaticFileProvider(LabStaticFiles files) : IDisposable
{
    public PhysicalFileProvider Provider { get; } = CreateProvider(files);

    public void Dispose() => Provider.Dispose();

    private static PhysicalFileProvider CreateProvider(LabStaticFiles files)
    {
        ArgumentNullException.ThrowIfNull(files);
        files.EnsureCreated();
        return new PhysicalFileProvider(files.Directory);
    }
}
