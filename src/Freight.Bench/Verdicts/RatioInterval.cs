namespace Freight.Bench.Verdicts;

/// <summary>
/// A confidence interval (95 % unless <see cref="Level"/> says otherwise) of a ratio A/B over <paramref name="Runs"/> runs of each side, and the point
/// estimate it is centred on (<see cref="RatioStatistics"/> says which estimate each method has).
/// </summary>
/// <param name="Method"><see cref="RatioStatistics.PairedLogT"/> or <see cref="RatioStatistics.BootstrapMedians"/>.</param>
public sealed record RatioInterval(double Estimate, double Low, double High, int Runs, string Method)
{
    /// <summary>The confidence level: <see cref="RatioStatistics.Level"/>, or <see cref="RatioStatistics.AddedRunsLevel"/> for a goal given adaptive runs.</summary>
    public double Level { get; init; } = RatioStatistics.Level;

    /// <summary>True when the interval holds <paramref name="value"/>, both bounds included.</summary>
    public bool Contains(double value) => Low <= value && value <= High;
}
