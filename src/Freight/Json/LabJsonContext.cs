using System.Text.Json.Serialization;

namespace Freight.Json;

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
public sealed partial class LabJsonContext : JsonSerializerContext;
