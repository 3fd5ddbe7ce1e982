using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Freight.Lab.Json;

/// <summary>
/// System.Text.Json source-generated metadata for the JSON lab payload, with study 2's settings:
/// camelCase names, nulls and default values left out, enums as strings. No reflection at run time.
/// </summary>
[JsonSourceGenerationOptions(
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingDefault,
    UseStringEnumConverter = true)]
[JsonSerializable(typeof(List<LabRecord>))]
[JsonSerializable(typeof(IAsyncEnumerable<LabRecord>))]
public sealed partial class LabJsonContext : JsonSerializerContext
{
    /// <summary>
    /// What the server writes with: the same settings, but escaping only what JSON requires (quotes,
    /// backslashes, control characters) instead of also every non-ASCII and HTML-sensitive character —
    /// as Newtonsoft does by default. Safe for an <c>application/json</c> body; not for JSON pasted into HTML.
    /// </summary>
    // Built on first use: static initializers of the generated half may run after ours.
    public static LabJsonContext Response => s_response ??= new(new JsonSerializerOptions(Default.Options)
    {
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    });

    private static LabJsonContext? s_response;
}
