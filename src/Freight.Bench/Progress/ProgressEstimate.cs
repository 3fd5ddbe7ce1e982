namespace Freight.Bench.Progress;

/// <summary>Where a suite stands: time since it began, since its current step began, and the estimated time left.</summary>
internal readonly record struct ProgressEstimate(TimeSpan Elapsed, TimeSpan StepElapsed, TimeSpan Remaining)
{
    /// <summary>The share done, by time: elapsed over elapsed plus the estimate of what is left.</summary>
    public double Fraction => Elapsed + Remaining is { Ticks: > 0 } total ? Math.Clamp(Elapsed / total, 0, 1) : 0;
}
