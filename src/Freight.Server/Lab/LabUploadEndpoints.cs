using Freight.Multipart;
using Freight.AspNetCore.Errors;
using Freight.AspNetCore.Files;
using Freight.Server.Hosting;
using Freight.Storage;
using Freight.Lab.Uploads;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Microsoft.Net.Http.Headers;

namespace Freight.Server.Lab;

/// <summary>
/// The upload variants of study 1 plus Freight's own. Each answers <c>{ bytes, hash }</c> of the file
/// content; <c>?sink=file</c> stores it at <c>lab/uploads/{variant}.bin</c> in the data directory through
/// the same store the files API uses (atomic: complete or absent), <c>?sink=memory</c> (default) hashes
/// and discards. <c>upload/iformfile</c> is the MVC controller <see cref="IFormFileUploadController"/>.
/// </summary>
public static class LabUploadEndpoints
{
    /// <summary>Study 1 read file sections with 32 KiB reads.</summary>
    private const int StudySectionReadSize = 32 * 1024;

    /// <summary>Study 1 created its MultipartReader with an 80 KiB buffer.</summary>
    private const int StudyMultipartBufferSize = 80 * 1024;

    /// <summary>Largest form field value the lab's multipart variants accept.</summary>
    private const int MaxFieldBytes = 64 * 1024;

    public static RouteGroupBuilder MapLabUploads(this RouteGroupBuilder lab)
    {
        ArgumentNullException.ThrowIfNull(lab);
        var uploads = lab.MapGroup("/upload");

        // Each variant's body as the files API's uploads: read on through the host's stop and cut by it, answered 503.
        // Kestrel's minimum rate stays theirs on HTTP/2 too: some variants read Request.Body, which Freight's would not see.
        uploads.AddEndpointFilter(static async (context, next) =>
        {
            using var body = context.HttpContext.RequestServices.GetRequiredService<UploadLimiter>().Follow(context.HttpContext, rated: false);
            return await next(context);
        });

        // U3–U9: Request.Body read with 4 KiB reads, as the study's server did.
        uploads.MapPost("/raw-stream", (HttpRequest request, IObjectStore store) =>
            ReceiveAsync(request, store, "raw-stream", sink => BodyPump.CopyAsync(request.Body, sink, 4 * 1024, request.HttpContext.RequestAborted)));

        // Request.BodyReader, one write per buffer segment: the plain pipe loop.
        uploads.MapPost("/raw-pipe", (HttpRequest request, IObjectStore store) =>
            ReceiveAsync(request, store, "raw-pipe", sink => BodyPump.CopyPerSegmentAsync(request.BodyReader, sink, request.HttpContext.RequestAborted)));

        // Freight's raw path: batched reads, one gather write per batch, hashing in place.
        uploads.MapPost("/freight", (HttpRequest request, IObjectStore store) =>
            ReceiveAsync(request, store, "freight", sink => BodyPump.CopyAsync(request.BodyReader, sink, request.HttpContext.RequestAborted)));

        // U2: ASP.NET Core's MultipartReader, streaming, 32 KiB section reads.
        uploads.MapPost("/multipart-reader", async (HttpRequest request, IObjectStore store) =>
        {
            var boundary = RequireBoundary(request);
            var reader = new MultipartReader(boundary, request.Body, StudyMultipartBufferSize);
            var fields = new Dictionary<string, string>(StringComparer.Ordinal);
            UploadResult? file = null;
            await using var sink = await LabQuery.OpenSinkAsync(request, store, "multipart-reader");
            Microsoft.AspNetCore.WebUtilities.MultipartSection? section;
            try
            {
                while ((section = await reader.ReadNextSectionAsync(request.HttpContext.RequestAborted)) is not null)
                {
                    var disposition = section.GetContentDispositionHeader();
                    if (disposition is null)
                    {
                        throw LabRequest.Invalid("A multipart section has no Content-Disposition header.");
                    }

                    if (disposition.IsFileDisposition())
                    {
                        file = file is null
                            ? await BodyPump.CopyAsync(section.Body, sink, StudySectionReadSize, request.HttpContext.RequestAborted)
                            : throw LabRequest.Invalid("The lab accepts one file per upload.");
                    }
                    else
                    {
                        using var text = new StreamReader(section.Body);
                        fields[disposition.Name.Value ?? ""] = await text.ReadToEndAsync(request.HttpContext.RequestAborted);
                    }
                }
            }
            catch (IOException truncated) when (truncated.Source == typeof(MultipartReader).Assembly.GetName().Name)
            {
                // MultipartReader reports a body that ends before its close delimiter (or holds no delimiter at
                // all) as a plain IOException. Storage failures are IOExceptions too (a 500), so only the
                // reader's own are the client's fault.
                throw LabRequest.Invalid("The multipart body ends before its close delimiter (RFC 2046 §5.1.1).", truncated);
            }

            return await CompleteAsync(sink, file, fields);
        });

        // Freight's multipart parser over the request PipeReader: no temp file, no copy of section data.
        uploads.MapPost("/multipart-freight", async (HttpRequest request, IObjectStore store, MultipartLimits limits) =>
        {
            var boundary = RequireBoundary(request);
            var reader = new MultipartPipeReader(request.BodyReader, boundary, limits);
            var fields = new Dictionary<string, string>(StringComparer.Ordinal);
            UploadResult? file = null;
            await using var sink = await LabQuery.OpenSinkAsync(request, store, "multipart-freight");
            Freight.Multipart.MultipartSection? part;
            while ((part = await reader.ReadNextSectionAsync(request.HttpContext.RequestAborted)) is not null)
            {
                if (part.FileName is not null)
                {
                    file = file is null
                        ? await MultipartUpload.CopySectionAsync(reader, sink, request.HttpContext.RequestAborted)
                        : throw LabRequest.Invalid("The lab accepts one file per upload.");
                }
                else
                {
                    fields[part.Name ?? ""] = await reader.ReadSectionAsStringAsync(MaxFieldBytes, request.HttpContext.RequestAborted);
                }
            }

            return await CompleteAsync(sink, file, fields);
        });

        return uploads;
    }

    /// <summary>The boundary of a multipart request, or a 400 problem naming what is wrong.</summary>
    internal static string RequireBoundary(HttpRequest request) =>
        MultipartBoundary.TryParse(request.ContentType, out var boundary)
            ? boundary
            : throw LabRequest.Invalid("Expected Content-Type multipart/form-data with a boundary parameter (RFC 7578 §4.1).");

    internal static async Task<IResult> CompleteAsync(IObjectWriter? sink, UploadResult? file, IReadOnlyDictionary<string, string>? fields)
    {
        if (file is null)
        {
            throw LabRequest.Invalid("The multipart body has no file part (a part with a filename).");
        }

        if (sink is not null)
        {
            await sink.CommitAsync();
        }

        return TypedResults.Ok(new LabUploadResponse(file.Bytes, file.Hash, fields));
    }

    private static async Task<IResult> ReceiveAsync(HttpRequest request, IObjectStore store, string variant, Func<IObjectWriter?, ValueTask<UploadResult>> copy)
    {
        await using var sink = await LabQuery.OpenSinkAsync(request, store, variant);
        var result = await copy(sink);
        return await CompleteAsync(sink, result, null);
    }
}
