using System.Globalization;
using System.Text.Json;

namespace Freight.Bench.Reports;

/// <summary>
/// What makes two results the same measurement: the scenario id and the parameters' human label, or, for a
/// row without a label, every parameter in a canonical order.
/// </summary>
internal readonly record struct CompareKey(string Scenario, string Label)
{
    public static CompareKey Of(ScenarioResult result) => new(result.Scenario, LabelOf(result));

    public static string LabelOf(ScenarioResult result)
    {
        if (result.Parameters.TryGetValue("label", out var label) && Text(label) is { Length: > 0 } text)
        {
            return text;
        }

        return string.Join(", ", result.Parameters.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"{p.Key}={Text(p.Value)}"));
    }

    public override string ToString() => Label.Length == 0 ? Scenario : $"{Scenario} — {Label}";

    // A loaded file holds JsonElements; a report built in memory holds strings and numbers.
    private static string Text(object? value) => value switch
    {
        null => "",
        JsonElement { ValueKind: JsonValueKind.String } e => e.GetString() ?? "",
        JsonElement e => e.GetRawText(),
        _ => Convert.ToString(value, CultureInfo.InvariantCulture) ?? "",
    };
}
