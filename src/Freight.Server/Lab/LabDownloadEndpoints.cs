using Freight.AspNetCore.Results;
using Freight.Server.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Options;

namespace Freight.Server.Lab;

/// <summary>
/// The download variants of study 1, all serving the same deterministic payload
/// (<c>?size=</c> bytes, 20 MiB by default) so the bench can compare them byte for byte.
/// </summary>
public static class LabDownloadEndpoints
{
    private const string Octets = "application/octet-stream";

    public static RouteGroupBuilder MapLabDownloads(this RouteGroupBuilder lab)
    {
        ArgumentNullException.ThrowIfNull(lab);
        var downloads = lab.MapGroup("/download");

        // D1: a stream copied with 4 KiB buffers, no Content-Length (ASP.NET Core 1.x FileStreamResult).
        downloads.MapGet("/stream-4k", async (HttpContext context, LabPayloads payloads, IOptions<FreightServerOptions> options) =>
        {
            var payload = payloads.GetBytes(LabQuery.ArraySize(context.Request, options.Value));
            context.Response.ContentType = Octets;
            using var stream = new MemoryStream(payload, writable: false);
            await stream.CopyToAsync(context.Response.Body, 4 * 1024, context.RequestAborted);
        });

        // Today's stock result over a stream.
        downloads.MapGet("/stream-default", (HttpContext context, LabPayloads payloads, IOptions<FreightServerOptions> options) =>
        {
            var payload = payloads.GetBytes(LabQuery.ArraySize(context.Request, options.Value));
            return TypedResults.Stream(new MemoryStream(payload, writable: false), Octets);
        });

        // D2: the study's custom result: 64 KiB copy buffer, Content-Length set because the stream is seekable.
        downloads.MapGet("/stream-64k", async (HttpContext context, LabPayloads payloads, IOptions<FreightServerOptions> options) =>
        {
            var payload = payloads.GetBytes(LabQuery.ArraySize(context.Request, options.Value));
            using var stream = new MemoryStream(payload, writable: false);
            context.Response.ContentType = Octets;
            context.Response.ContentLength = stream.Length;
            await stream.CopyToAsync(context.Response.Body, 64 * 1024, context.RequestAborted);
        });

        // One write of the whole payload.
        downloads.MapGet("/bytes", async (HttpContext context, LabPayloads payloads, IOptions<FreightServerOptions> options) =>
        {
            var payload = payloads.GetBytes(LabQuery.ArraySize(context.Request, options.Value));
            context.Response.ContentType = Octets;
            context.Response.ContentLength = payload.Length;
            await context.Response.Body.WriteAsync(payload, context.RequestAborted);
        });

        // Copied straight into the response PipeWriter's memory, 64 KiB at a time, flushing each chunk.
        downloads.MapGet("/pipewriter", async (HttpContext context, LabPayloads payloads, IOptions<FreightServerOptions> options) =>
        {
            var payload = payloads.GetBytes(LabQuery.ArraySize(context.Request, options.Value));
            context.Response.ContentType = Octets;
            context.Response.ContentLength = payload.Length;
            var writer = context.Response.BodyWriter;
            for (var offset = 0; offset < payload.Length;)
            {
                var memory = writer.GetMemory(Math.Min(64 * 1024, payload.Length - offset));
                var count = Math.Min(memory.Length, payload.Length - offset);
                payload.AsSpan(offset, count).CopyTo(memory.Span);
                writer.Advance(count);
                offset += count;
                await writer.FlushAsync(context.RequestAborted);
            }
        });

        // Stock file result from disk.
        downloads.MapGet("/file", (HttpContext context, LabPayloads payloads, IOptions<FreightServerOptions> options) =>
            TypedResults.PhysicalFile(payloads.GetFile(LabQuery.Size(context.Request, options.Value)), Octets));

        // Freight's download path from disk, as a user's route gets it (FreightResults.File): sendfile(2) on cleartext
        // HTTP/1.1, positional reads straight into the response writer's memory elsewhere.
        downloads.MapGet("/freight", (HttpContext context, LabPayloads payloads, IOptions<FreightServerOptions> options) =>
            FreightResults.File(payloads.GetFile(LabQuery.Size(context.Request, options.Value)), Octets));

        return downloads;
    }
}
