using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Threads;

/// <summary>
/// One row of the threads suite (study 3): a lab endpoint that waits <see cref="DelayMs"/> (blocking or
/// not) under a closed-loop ramp from <see cref="RampFrom"/> to <see cref="RampTo"/> connections.
/// </summary>
public sealed record ThreadsScenario(string Id, int DelayMs, int RampFrom, int RampTo, double RampSeconds, PublishedFigure? Published = null)
{
    public string Describe() => $"{RampFrom}→{RampTo} conns over {RampSeconds:0} s, {DelayMs} ms";
}
