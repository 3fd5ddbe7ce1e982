using System.Text.Json;
using System.Text.Json.Serialization;

namespace Freight.Bench.Results;

/// <summary>
/// <see cref="ScenarioParameters"/> as the JSON object the result files have always held: one property per key, in the
/// row's order, a string, a number or true/false; a known key's value read as its kind, anything else kept as read.
/// </summary>
internal sealed class ScenarioParametersConverter : JsonConverter<ScenarioParameters>
{
    public override ScenarioParameters Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw new JsonException($"parameters: an object expected, not {reader.TokenType}.");
        }

        var parameters = new ScenarioParameters();
        while (reader.Read() && reader.TokenType != JsonTokenType.EndObject)
        {
            var key = reader.GetString()!;
            reader.Read();
            parameters.Put(key, ReadValue(ref reader, ScenarioParameters.Kinds.TryGetValue(key, out var kind) ? kind : null));
        }

        return parameters;
    }

    public override void Write(Utf8JsonWriter writer, ScenarioParameters value, JsonSerializerOptions options)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(value);
        writer.WriteStartObject();
        foreach (var (key, entry) in value.Entries)
        {
            writer.WritePropertyName(key);
            switch (entry)
            {
                case string text:
                    writer.WriteStringValue(text);
                    break;
                case long number:
                    writer.WriteNumberValue(number);
                    break;
                case double number:
                    writer.WriteNumberValue(number);
                    break;
                case bool flag:
                    writer.WriteBooleanValue(flag);
                    break;
                case JsonElement element:
                    element.WriteTo(writer);
                    break;
                default:
                    throw new JsonException($"parameters: {key} holds a {entry.GetType().Name}.");
            }
        }

        writer.WriteEndObject();
    }

    private static object ReadValue(ref Utf8JsonReader reader, ParameterKind? kind)
    {
        switch (kind, reader.TokenType)
        {
            case (ParameterKind.Text, JsonTokenType.String):
                return reader.GetString()!;
            case (ParameterKind.Integer, JsonTokenType.Number) when reader.TryGetInt64(out var integer):
                return integer;
            case (ParameterKind.Number, JsonTokenType.Number):
                return reader.GetDouble();
            case (ParameterKind.Boolean, JsonTokenType.True or JsonTokenType.False):
                return reader.GetBoolean();
            default:
                // Not a key this version knows, or not of its kind: kept as it was, written back unchanged.
                using (var document = JsonDocument.ParseValue(ref reader))
                {
                    return document.RootElement.Clone();
                }
        }
    }
}
