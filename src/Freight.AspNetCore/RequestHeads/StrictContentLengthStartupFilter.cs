using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.DependencyInjection;

namespace Freight.AspNetCore.RequestHeads;

/// <summary>
/// Puts <see cref="ContentLengthMiddleware"/> in front of the app's whole pipeline: no middleware of the app's (request
/// logging, body buffering, forwarded headers) sees a request before its length is judged, and the app adds nothing.
/// </summary>
internal sealed class StrictContentLengthStartupFilter : IStartupFilter
{
    public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
    {
        // Resolved at the first request, not while the pipeline is built (the problem middleware reads the files
        // options, which the host validates at start), and never per request.
        var services = app.ApplicationServices;
        ContentLengthMiddleware? middleware = null;
        app.Use(rest => context => (middleware ??= services.GetRequiredService<ContentLengthMiddleware>()).InvokeAsync(context, rest));
        next(app);
    };
}
