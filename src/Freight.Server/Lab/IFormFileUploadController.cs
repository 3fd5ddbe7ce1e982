using Freight.Storage;
using Freight.Lab.Uploads;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;

namespace Freight.Server.Lab;

/// <summary>
/// U1 of study 1: MVC binds the whole form first (ASP.NET Core buffers it, to a temp file above
/// 64 KiB), then the action reads the file with 32 KiB reads.
/// </summary>
[ApiController]
[ReadFormFirst]
public sealed class IFormFileUploadController(IObjectStore store) : ControllerBase
{
    [HttpPost("/lab/upload/iformfile")]
    public async Task<IResult> UploadAsync([FromForm] IFormFileUploadModel model)
    {
        ArgumentNullException.ThrowIfNull(model);
        await using var sink = await LabQuery.OpenSinkAsync(Request, store, "iformfile");
        await using var content = model.File.OpenReadStream();
        var result = await BodyPump.CopyAsync(content, sink, 32 * 1024, HttpContext.RequestAborted);
        var fields = new Dictionary<string, string> { ["SomeValue"] = model.SomeValue.ToString(System.Globalization.CultureInfo.InvariantCulture) };
        return await LabUploadEndpoints.CompleteAsync(sink, result, fields);
    }
}

/// <summary>The study's form model.</summary>
public sealed class IFormFileUploadModel
{
    public required IFormFile File { get; set; }

    public int SomeValue { get; set; }
}
