using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Measure;

/// <summary>
/// What a suite's goals say after a pass: whether every goal that has (or can have) an interval is conclusive,
/// and the scenarios behind its goals and its A/A control — the rows an added pass measures again.
/// </summary>
public sealed record GoalCheck<TScenario>(bool Conclusive, IReadOnlyCollection<TScenario> GoalRows)
    where TScenario : notnull
{
    /// <summary>
    /// The check from a suite's ratios, computed on rows summarised from the samples so far: <paramref name="rows"/>[i]
    /// is the row of <paramref name="scenarios"/>[i]. A goal whose sides have runs but no interval yet (one run) is
    /// inconclusive; a goal without sides (an aggregate figure, no per-run value) cannot be helped by runs and is left out.
    /// Verdicts are drawn at <paramref name="level"/>.
    /// </summary>
    public static GoalCheck<TScenario> Of(IReadOnlyList<TScenario> scenarios, IReadOnlyList<ScenarioResult> rows, IEnumerable<RatioResult> ratios, double level = RatioStatistics.Level)
    {
        ArgumentNullException.ThrowIfNull(scenarios);
        ArgumentNullException.ThrowIfNull(rows);
        ArgumentNullException.ThrowIfNull(ratios);
        var scenarioOf = new Dictionary<ScenarioResult, TScenario>(ReferenceEqualityComparer.Instance);
        for (var i = 0; i < rows.Count; i++)
        {
            scenarioOf[rows[i]] = scenarios[i];
        }

        var conclusive = true;
        var goalRows = new HashSet<TScenario>();
        foreach (var ratio in ratios)
        {
            if (ratio.Sides is not { } sides || (ratio.Goal is null && !AaControl.IsCopy(sides.Numerator.Scenario)))
            {
                continue;
            }

            if (scenarioOf.TryGetValue(sides.Numerator, out var numerator) && scenarioOf.TryGetValue(sides.Denominator, out var denominator))
            {
                goalRows.Add(numerator);
                goalRows.Add(denominator);
            }

            if (ratio.Goal is not null && ratio.AtLevel(level).Verdict is null or "inconclusive")
            {
                conclusive = false;
            }
        }

        return new GoalCheck<TScenario>(conclusive, goalRows);
    }
}
