using System.Globalization;
using Freight.Lab.Payload;
using Freight.AspNetCore.Errors;
using Freight.Server.Hosting;
using Freight.Storage;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;

namespace Freight.Server.Lab;

/// <summary>Reads the lab's query parameters: <c>size</c> (bytes) and <c>sink</c> (memory | file).</summary>
internal static class LabQuery
{
    public static long Size(HttpRequest request, FreightServerOptions options)
    {
        var text = request.Query["size"].ToString();
        if (text.Length == 0)
        {
            return DeterministicPayload.DefaultSize;
        }

        if (!long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var size) || size > options.MaxLabPayloadBytes)
        {
            throw LabRequest.Invalid($"size must be a whole number of bytes from 0 to {options.MaxLabPayloadBytes}.");
        }

        return size;
    }

    public static int ArraySize(HttpRequest request, FreightServerOptions options)
    {
        var size = Size(request, options);
        return size <= Array.MaxLength
            ? (int)size
            : throw LabRequest.Invalid($"in-memory variants serve at most {Array.MaxLength} bytes; use download/file or download/freight.");
    }

    /// <summary>
    /// The Content-Length if it is within the body-size limit. Kestrel enforces the limit only when the body
    /// is first read, so a length over it must not reach storage (it would reserve that much disk).
    /// </summary>
    public static long? TrustedContentLength(HttpRequest request)
    {
        var limit = request.HttpContext.Features.Get<IHttpMaxRequestBodySizeFeature>()?.MaxRequestBodySize;
        return request.ContentLength is { } length && (limit is null || length <= limit) ? length : null;
    }

    /// <summary>
    /// Opens the upload's destination: null (hash and discard) or a file in the data directory, reserved at
    /// the body's length (a multipart file part is never longer than its body; the store trims on commit).
    /// </summary>
    public static async ValueTask<IObjectWriter?> OpenSinkAsync(HttpRequest request, IObjectStore store, string variant)
    {
        var sink = request.Query["sink"].ToString();
        return sink switch
        {
            "" or "memory" => null,
            "file" => await store.BeginWriteAsync($"lab/uploads/{variant}.bin", TrustedContentLength(request), request.HttpContext.RequestAborted),
            _ => throw LabRequest.Invalid($"sink must be 'memory' or 'file', not '{sink}'."),
        };
    }
}
