using System.Text.Json;
using Freight.Lab.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;

namespace Freight.Server.Lab.Json;

/// <summary>
/// Study 2's System.Text.Json variants, minimal APIs: <c>json/stj</c> and <c>json/stj-stream</c>.
/// The Newtonsoft variants are MVC actions in <see cref="NewtonsoftJsonController"/>. All four answer the same
/// records (<c>?records=N</c>) as semantically equal JSON arrays: camelCase, nulls and defaults left out, enums
/// as strings.
/// </summary>
public static class LabJsonEndpoints
{
    private const string JsonUtf8 = "application/json; charset=utf-8";

    public static RouteGroupBuilder MapLabJson(this RouteGroupBuilder lab)
    {
        ArgumentNullException.ThrowIfNull(lab);
        var json = lab.MapGroup("/json");

        // J3: the list (built once, see LabJsonQuery.Materialize), then the source-generated serializer writes
        // straight into the response PipeWriter. No temp file and no synchronous I/O; STJ flushes whenever ~14.7 KB are pending.
        json.MapGet("/stj", async (HttpContext context) =>
        {
            var records = LabJsonQuery.Materialize(LabJsonQuery.RecordCount(context.Request));
            context.Response.ContentType = JsonUtf8;
            await JsonSerializer.SerializeAsync(context.Response.BodyWriter, records, LabJsonContext.Response.ListLabRecord, context.RequestAborted);
        });

        // Records produced lazily and streamed, never all in memory. STJ's PipeWriter overload flushes whenever
        // unflushed bytes pass 90% of four 4 KiB pipe segments (~14.7 KB, about 45 records) and before awaiting a
        // record that is not ready, so the first bytes leave within milliseconds whatever the count.
        json.MapGet("/stj-stream", async (HttpContext context, LabJsonGates gates) =>
        {
            var count = LabJsonQuery.RecordCount(context.Request);
            var gate = LabJsonQuery.GateName(context.Request);
            Func<Task>? beforeLast = gate is null ? null : () => gates.WaitAsync(gate, context.RequestAborted);
            context.Response.ContentType = JsonUtf8;
            await JsonSerializer.SerializeAsync(
                context.Response.BodyWriter,
                LabRecordGenerator.EnumerateAsync(count, beforeLast, context.RequestAborted),
                LabJsonContext.Response.IAsyncEnumerableLabRecord,
                context.RequestAborted);
        });

        // Test hook: lets json/stj-stream?gate=NAME produce its last record.
        json.MapPost("/gates/{name}", (string name, LabJsonGates gates) =>
        {
            gates.Open(LabJsonQuery.ValidGateName(name));
            return TypedResults.NoContent();
        });

        return json;
    }
}
