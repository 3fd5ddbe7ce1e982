using Freight.Lab.Metrics;
using Freight.Server.Lab.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;

namespace Freight.Server.Lab;

/// <summary>Maps <c>/lab</c>: the studies' variants side by side with Freight's paths, and runtime counters.</summary>
public static class LabEndpoints
{
    public static RouteGroupBuilder MapLab(this IEndpointRouteBuilder endpoints)
    {
        var lab = endpoints.MapGroup("/lab");
        lab.MapLabDownloads();
        lab.MapLabUploads();
        lab.MapLabJson();
        lab.MapLabStatic(); // study 4's static/* (static/staticfiles is the stock middleware, see UseLabStaticFiles)
        lab.MapLabThreads(); // study 3's threads/* and the sampler's metrics/samples
        // Cumulative process counters; the bench reads them before and after each run.
        lab.MapGet("/metrics", () => TypedResults.Ok(RuntimeSnapshot.Capture()));
        // A trivial endpoint for checking that a load generator, not the server's work, sets the pace.
        lab.MapGet("/ping", () => "pong");
        return lab;
    }
}
