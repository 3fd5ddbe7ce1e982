using System.Reflection;
using Freight.Downloads;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Net.Http.Headers;

namespace Freight.AspNetCore.Results;

/// <summary>A file on Freight's file path; made by <see cref="FreightResults.File"/>.</summary>
public sealed class FreightFileResult : IResult, IEndpointMetadataProvider
{
    // Shared by every app that registers no FileCache of its own: bounded by FileCacheOptions' defaults.
    private static readonly FileCache s_defaultCache = new();

    internal FreightFileResult(string path, string? contentType, string? downloadName, string? cacheControl)
    {
        Path = path;
        ContentType = contentType;
        DownloadName = downloadName;
        CacheControl = cacheControl;
    }

    /// <summary>The full path of the file.</summary>
    public string Path { get; }

    /// <summary>The media type, or null for the one the extension names.</summary>
    public string? ContentType { get; }

    /// <summary>The attachment's file name, or null for no Content-Disposition.</summary>
    public string? DownloadName { get; }

    /// <summary>The Cache-Control of every answer about the file (200, 206, 304, 412, 416), or null to send none.</summary>
    public string? CacheControl { get; }

    /// <inheritdoc/>
    public async Task ExecuteAsync(HttpContext httpContext)
    {
        ArgumentNullException.ThrowIfNull(httpContext);
        var services = ApplicationServicesMetadata.For(httpContext);
        var cache = services.GetService<FileCache>() ?? s_defaultCache;
        var representation = FileResponder.TryDescribe(cache, Path, out var lease);
        using (lease)
        {
            var file = lease.File;
            if (representation is null)
            {
                const string NoFile = "There is no such file.";
                Errors.ProblemMiddleware.LogAnswered(services, httpContext, StatusCodes.Status404NotFound, NoFile);
                await TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "Not found", detail: NoFile).ExecuteAsync(httpContext);
                return;
            }

            if (ContentType is not null)
            {
                representation = new FileRepresentation(representation.Length, representation.LastModified, representation.EntityTag, ContentType, representation.Content);
            }

            if (CacheControl is not null)
            {
                httpContext.Response.Headers.CacheControl = CacheControl;
            }

            if (DownloadName is not null)
            {
                var disposition = new ContentDispositionHeaderValue("attachment");
                disposition.SetHttpFileName(DownloadName);
                httpContext.Response.Headers.ContentDisposition = disposition.ToString();
            }

            if (ReprDigestAnswer.Requested(httpContext.Request) && ReprDigestAnswer.AnswersWithBody(httpContext.Request, representation)
                && ReprDigestAnswer.PreferredAlgorithm(httpContext.Request) is { } algorithm)
            {
                // A plain file has nowhere to keep a digest: asking for one reads the file once more.
                var digest = representation.Content is { } content
                    ? ReprDigestAnswer.Of(content.Span, algorithm)
                    : await ReprDigestAnswer.ComputeAsync(representation.Length, (buffer, offset, token) => RandomAccess.ReadAsync(file!, buffer, offset, token), algorithm, Path, httpContext.RequestAborted);
                ReprDigestAnswer.Write(httpContext.Response, algorithm, digest);
            }

            await FileResponder.SendAsync(httpContext, representation, file);
        }
    }

    /// <inheritdoc/>
    public static void PopulateMetadata(MethodInfo method, EndpointBuilder builder) => FileResultMetadata.Populate(builder);
}
