using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Results;

/// <summary>
/// The app's own services, as metadata of an endpoint that returns one of Freight's results, so that the result resolves
/// its singletons (the file cache, the files API's store) from them. Asking <c>HttpContext.RequestServices</c> instead
/// creates a DI scope for the request: a user's app answering a 4 KiB file with <c>FreightResults.File</c> allocated 442
/// bytes a response with it and 257 without (docs/results/2026-11-27-kestrel-floor.md).
/// </summary>
internal sealed class ApplicationServicesMetadata(IServiceProvider services)
{
    public IServiceProvider Services { get; } = services;

    /// <summary>
    /// The services a result of <paramref name="context"/>'s endpoint resolves singletons from: the app's, when the
    /// endpoint declares the result's type (its metadata was populated), else the request's.
    /// </summary>
    public static IServiceProvider For(HttpContext context) =>
        context.GetEndpoint()?.Metadata.GetMetadata<ApplicationServicesMetadata>()?.Services ?? context.RequestServices;
}
