using System.Buffers;
using Freight.Lab.Json;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Formatters;
using Microsoft.Extensions.Options;

namespace Freight.Server.Lab.Json;

/// <summary>
/// Study 2's MVC endpoint: the records through <c>AddNewtonsoftJson()</c>'s output formatter, with the settings of
/// <see cref="LabNewtonsoftSettings"/> (registered on the host's <c>AddControllers()</c>).
/// </summary>
public sealed class NewtonsoftJsonController : ControllerBase
{
    // J2's formatter options, kept apart so the application's MvcOptions stay default (J1 depends on them).
    private static readonly MvcOptions s_unbufferedOptions = new() { SuppressOutputFormatterBuffering = true };

    /// <summary>
    /// J1, the defaults: the formatter serializes synchronously into a FileBufferingWriteStream, sets Content-Length,
    /// and only then drains it to the client. Past 30 KiB the stream spills to a temp file in ASPNETCORE_TEMP, moving
    /// its memory buffer there each time it would overflow: the file ends up with all but the last few KiB of the body.
    /// </summary>
    [HttpGet("/lab/json/newtonsoft-buffered")]
    public List<LabRecord> Buffered() => LabJsonQuery.Materialize(LabJsonQuery.RecordCount(Request));

    /// <summary>
    /// J2: the same formatter with output buffering suppressed, so it writes synchronously into the response body;
    /// that needs synchronous I/O, allowed for this request only (it blocks a thread-pool thread per flush: the
    /// reason the study rejected it).
    /// </summary>
    [HttpGet("/lab/json/newtonsoft-unbuffered")]
    public ObjectResult Unbuffered([FromServices] IOptions<MvcNewtonsoftJsonOptions> json)
    {
        ArgumentNullException.ThrowIfNull(json);
        var records = LabJsonQuery.Materialize(LabJsonQuery.RecordCount(Request));
        HttpContext.Features.GetRequiredFeature<IHttpBodyControlFeature>().AllowSynchronousIO = true;

        // A formatter per request is a few small objects next to megabytes of JSON; the serializer settings are the
        // application's, so the output matches J1 byte for byte.
        var formatter = new NewtonsoftJsonOutputFormatter(json.Value.SerializerSettings, ArrayPool<char>.Shared, s_unbufferedOptions, json.Value);
        return new ObjectResult(records) { Formatters = { formatter } };
    }
}
