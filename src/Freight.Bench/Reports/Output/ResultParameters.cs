using System.Text.Json;

namespace Freight.Bench.Reports.Output;

/// <summary>Reads a result row's parameters, whether loaded from a file (JsonElements) or built in memory (numbers).</summary>
internal static class ResultParameters
{
    public static long? Long(ScenarioResult result, string parameter) => result.Parameters.GetValueOrDefault(parameter) switch
    {
        JsonElement { ValueKind: JsonValueKind.Number } e when e.TryGetInt64(out var n) => n,
        int n => n,
        long n => n,
        _ => null,
    };

    /// <summary>The parameter as a size (<c>4 KiB</c>, <c>1 GiB</c>); null when the row has no such number.</summary>
    public static string? Size(ScenarioResult result, string parameter) => Long(result, parameter) is { } bytes ? SizeText.Format(bytes) : null;
}
