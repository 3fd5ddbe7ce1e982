namespace Freight.Bench.Verdicts;

/// <summary>What a goal's 95 % interval says about it (docs/bench.md, Intervals and verdicts).</summary>
public enum GoalVerdict
{
    /// <summary>The whole interval is on the goal's side: a "≥" goal's lower bound clears it, a "≤" goal's upper bound is under it.</summary>
    Met,

    /// <summary>The whole interval is on the wrong side of the goal.</summary>
    Missed,

    /// <summary>The interval straddles the goal: more runs, or a quieter machine, are needed to tell.</summary>
    Inconclusive,
}
