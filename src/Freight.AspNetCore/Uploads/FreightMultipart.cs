using System.Reflection;
using System.Runtime.CompilerServices;
using Freight.AspNetCore.Errors;
using Freight.Multipart;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.Extensions.DependencyInjection;

namespace Freight.AspNetCore.Uploads;

/// <summary>
/// A multipart/form-data request body read as it arrives — a minimal-API parameter
/// (<c>app.MapPost("/photos", async (FreightMultipart form) =&gt; ...)</c>) that buffers nothing: no IFormFile, no
/// temp file. Sections come one at a time from <see cref="ReadSectionsAsync"/>, each body a stream over the request
/// body; limits (sections, header size and count) come from the registered <see cref="MultipartLimits"/>. Not a
/// multipart/form-data request: 415 (problem+json). A malformed body: 400.
/// </summary>
public sealed class FreightMultipart : IEndpointParameterMetadataProvider
{
    private readonly MultipartPipeReader _reader;
    private readonly HttpContext _context;
    private FreightMultipartSection? _current;

    private FreightMultipart(HttpContext context, MultipartPipeReader reader)
    {
        _context = context;
        _reader = reader;
    }

    /// <summary>Minimal APIs' binding: the request's multipart body, or 415 when it has none.</summary>
    public static ValueTask<FreightMultipart?> BindAsync(HttpContext context, ParameterInfo parameter)
    {
        ArgumentNullException.ThrowIfNull(context);
        return ValueTask.FromResult<FreightMultipart?>(From(context));
    }

    /// <summary>The request's multipart body, for code that is not a minimal-API handler; 415 when it has none.</summary>
    public static FreightMultipart From(HttpContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        if (!MultipartBoundary.TryParse(context.Request.ContentType, out var boundary))
        {
            throw new ProblemException(StatusCodes.Status415UnsupportedMediaType, "Expected multipart/form-data",
                "This endpoint reads a multipart/form-data body (RFC 7578) with a boundary parameter.");
        }

        var limits = context.RequestServices.GetService<MultipartLimits>() ?? new MultipartLimits();
        if (context.RequestServices.GetService<Files.UploadLimiter>() is { } uploads)
        {
            // Read on through the host's stop and cut by it, as the files API's uploads are, until the response ends.
            context.Response.RegisterForDispose(uploads.Follow(context));
        }

        return new FreightMultipart(context, new MultipartPipeReader(context.Request.BodyReader, boundary, limits));
    }

    /// <summary>
    /// The sections in order. Each is valid until the next is asked for: the unread rest of a section's body is
    /// skipped then, without being buffered.
    /// </summary>
    public async IAsyncEnumerable<FreightMultipartSection> ReadSectionsAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        var token = cancellationToken.CanBeCanceled ? cancellationToken : _context.RequestAborted;
        while (true)
        {
            _current?.End();
            var section = await _reader.ReadNextSectionAsync(token);
            if (section is null)
            {
                yield break;
            }

            _current = new FreightMultipartSection(_context, _reader, section);
            yield return _current;
        }
    }

    /// <inheritdoc/>
    public static void PopulateMetadata(ParameterInfo parameter, EndpointBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Metadata.Add(new AcceptsMetadata(["multipart/form-data"], typeof(FreightMultipart)));
    }
}
