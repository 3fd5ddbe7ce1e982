namespace Freight.Bench.Progress;

/// <summary>One warm-up, run or round of one scenario, as the progress display names it.</summary>
/// <param name="Id">The scenario id (<c>download/freight</c>).</param>
/// <param name="Label">Its parameters' label (<c>http h1 memory 64K</c>).</param>
/// <param name="Phase">Which step of it: <c>warm-up</c>, <c>run 2/5</c>, <c>round 1/3</c>.</param>
/// <param name="PlannedSeconds">How long the step is planned to take: the estimate of the time left scales from these.</param>
/// <param name="Unit">What its live rate counts.</param>
public sealed record ProgressStep(string Id, string Label, string Phase, double PlannedSeconds, ProgressUnit Unit = ProgressUnit.Bytes)
{
    /// <summary>The scenario's first step: plain output announces the scenario with a line here.</summary>
    public bool Begins { get; init; }
}
