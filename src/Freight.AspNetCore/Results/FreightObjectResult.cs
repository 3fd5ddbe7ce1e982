using System.Reflection;
using Freight.AspNetCore.Files;
using Freight.Storage;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.Extensions.DependencyInjection;

namespace Freight.AspNetCore.Results;

/// <summary>A stored object on Freight's file path; made by <see cref="FreightResults.Object"/>.</summary>
public sealed class FreightObjectResult : IResult, IEndpointMetadataProvider
{
    internal FreightObjectResult(string key, IObjectStore? store, string? cacheControl)
    {
        Key = key;
        Store = store;
        CacheControl = cacheControl;
    }

    /// <summary>The object's key in its store.</summary>
    public string Key { get; }

    /// <summary>The store, or null for the files API's.</summary>
    public IObjectStore? Store { get; }

    /// <summary>The Cache-Control of every answer about the object (200, 206, 304, 412, 416), or null to send none.</summary>
    public string? CacheControl { get; }

    /// <inheritdoc/>
    public async Task ExecuteAsync(HttpContext httpContext)
    {
        ArgumentNullException.ThrowIfNull(httpContext);
        var services = ApplicationServicesMetadata.For(httpContext);
        var store = Store ?? FilesEndpoints.Store(services);
        if (!await StoredObjectResponder.TrySendAsync(httpContext, store, Key, CacheControl))
        {
            var noObject = $"There is no object '{Key}'.";
            Errors.ProblemMiddleware.LogAnswered(services, httpContext, StatusCodes.Status404NotFound, noObject);
            await TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "Not found", detail: noObject).ExecuteAsync(httpContext);
        }
    }

    /// <inheritdoc/>
    public static void PopulateMetadata(MethodInfo method, EndpointBuilder builder) => FileResultMetadata.Populate(builder);
}
