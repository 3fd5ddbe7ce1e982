using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.Mvc;

namespace Freight.AspNetCore.Results;

/// <summary>
/// What a file answer can be, as endpoint metadata: OpenAPI lists these responses for a route that returns one; and the
/// app's services, which the answer resolves its singletons from (<see cref="ApplicationServicesMetadata"/>).
/// </summary>
internal static class FileResultMetadata
{
    public static void Populate(EndpointBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status200OK, typeof(Stream), ["application/octet-stream"]));
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status206PartialContent, typeof(Stream), ["application/octet-stream", "multipart/byteranges"]));
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status304NotModified));
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status404NotFound, typeof(ProblemDetails), ["application/problem+json"]));
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status412PreconditionFailed));
        builder.Metadata.Add(new ProducesResponseTypeMetadata(StatusCodes.Status416RangeNotSatisfiable));
        builder.Metadata.Add(new ApplicationServicesMetadata(builder.ApplicationServices));
    }
}
