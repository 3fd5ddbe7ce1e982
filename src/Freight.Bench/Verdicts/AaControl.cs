using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Verdicts;

/// <summary>
/// The A/A control of a suite: one of its scenarios measured a second time under its id with <see cref="Suffix"/>
/// (<c>download/freight#a</c>), interleaved like every other row. The two rows differ only in their slot in each
/// pass, so the interval of their ratio must hold 1.0; its width is the run's noise floor (docs/bench.md, A/A control).
/// </summary>
public static class AaControl
{
    /// <summary>What the copy's id adds to the scenario's.</summary>
    public const string Suffix = "#a";

    /// <summary>The copy's row id.</summary>
    public static string CopyId(string id) => id + Suffix;

    /// <summary>True for a copy's row: no goal or peer comparison may pick it as a variant of its own.</summary>
    public static bool IsCopy(string rowId)
    {
        ArgumentNullException.ThrowIfNull(rowId);
        return rowId.EndsWith(Suffix, StringComparison.Ordinal);
    }

    /// <summary>The control ratio's name in the ratio tables: <c>A/A download/freight#a / download/freight</c>.</summary>
    public static string RatioName(string id) => $"A/A {CopyId(id)} / {id}";

    /// <summary>
    /// The noise floor an A/A interval shows: its multiplicative half-width, √(high/low) − 1 (0.03 is ±3 %). Two
    /// rows of the run whose true ratio is within this of a goal cannot be told apart from it at this many runs.
    /// </summary>
    public static double NoiseFloor(RatioInterval aa)
    {
        ArgumentNullException.ThrowIfNull(aa);
        return Math.Sqrt(aa.High / aa.Low) - 1;
    }

    /// <summary>
    /// The suite's A/A ratio: its verified copy row's <paramref name="figure"/> over the original's (the row of the same
    /// id without <see cref="Suffix"/> and the same parameters), with the interval of their runs; null without both.
    /// </summary>
    public static RatioResult? Ratio(IReadOnlyList<ScenarioResult> rows, Func<ScenarioResult, Summary?> figure)
    {
        ArgumentNullException.ThrowIfNull(rows);
        ArgumentNullException.ThrowIfNull(figure);
        var copy = rows.FirstOrDefault(r => IsCopy(r.Scenario) && r.Verified);
        var id = copy?.Scenario[..^Suffix.Length];
        var original = copy is null ? null : rows.FirstOrDefault(r => r.Scenario == id && r.Verified && SameParameters(r, copy));
        if (copy is null || original is null)
        {
            return null;
        }

        return new RatioResult(RatioName(id!), copy.Scenario, original.Scenario, figure(copy)?.Median / figure(original)?.Median)
            .WithRuns(copy, original, figure);
    }

    private static bool SameParameters(ScenarioResult a, ScenarioResult b)
    {
        if (a.Parameters.Count != b.Parameters.Count)
        {
            return false;
        }

        var others = b.Parameters.Texts().ToDictionary(p => p.Key, p => p.Value, StringComparer.Ordinal);
        foreach (var (key, value) in a.Parameters.Texts())
        {
            if (!others.TryGetValue(key, out var other) || value != other)
            {
                return false;
            }
        }

        return true;
    }
}
