using Freight.Bench.Results;

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
        ArgumentNullException.ThrowIfNull(result);
        if (result.Parameters.Label is { Length: > 0 } label)
        {
            return label;
        }

        // Texts are the values as the JSON has them: a row built in memory and the same row read from its file agree.
        return string.Join(", ", result.Parameters.Texts().OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => $"{p.Key}={p.Value}"));
    }

    public override string ToString() => Label.Length == 0 ? Scenario : $"{Scenario} — {Label}";
}
