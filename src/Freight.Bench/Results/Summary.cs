namespace Freight.Bench.Results;

/// <summary>Median, minimum and maximum over the runs.</summary>
public sealed record Summary(double Median, double Min, double Max)
{
    /// <summary>
    /// One value per measured run, in run order (run i of every row of a suite was interleaved with run i of the
    /// others): what a goal's confidence interval is drawn from. Null where the figure is not one per run.
    /// </summary>
    public IReadOnlyList<double>? Samples { get; init; }

    public static Summary? Of(IReadOnlyList<double> values)
    {
        if (values.Count == 0)
        {
            return null;
        }

        var sorted = values.Order().ToArray();
        var middle = sorted.Length / 2;
        var median = sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        return new Summary(median, sorted[0], sorted[^1]);
    }

    /// <summary><see cref="Of"/> over one value per run, in run order, keeping them as <see cref="Samples"/>.</summary>
    public static Summary? OfRuns(IReadOnlyList<double> perRun) => Of(perRun) is { } summary ? summary with { Samples = [.. perRun] } : null;
}
