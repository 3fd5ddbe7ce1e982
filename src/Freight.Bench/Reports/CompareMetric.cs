using Freight.Bench.Results;

namespace Freight.Bench.Reports;

/// <summary>One row of a comparison table: its name with the unit, which way is better, and where its value comes from.</summary>
/// <param name="OneRunFloor">
/// Comparing single runs (<c>freight load</c> results, fewer than <see cref="RunsInterval.MinimumRuns"/> runs a side): the
/// change a mark needs, at least, as measured between two runs of one command on a busy and on a quiet machine
/// (<see cref="OneRunNoise"/>); null, never marked then; <see cref="OneRunNoise.AnyChange"/>, any change (failures are no noise).
/// </param>
/// <param name="Seconds">A single run's per-second values of the figure (its series), from which <see cref="OneRunNoise"/> draws an interval.</param>
/// <param name="Runs">The figure's value in each run (<c>freight load --runs</c>), from which <see cref="RunsInterval"/> draws an interval.</param>
public sealed record CompareMetric(
    string Name,
    CompareDirection Direction,
    Func<ScenarioResult, double?> Value,
    bool Integer = false,
    OneRunFloor? OneRunFloor = null,
    Func<ScenarioResult, IEnumerable<double?>?>? Seconds = null,
    Func<ScenarioResult, IReadOnlyList<double>?>? Runs = null);
