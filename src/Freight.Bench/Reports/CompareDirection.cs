namespace Freight.Bench.Reports;

/// <summary>Which way a compared metric improves; <see cref="None"/> rows show the change but are never marked.</summary>
public enum CompareDirection
{
    HigherIsBetter,
    LowerIsBetter,

    /// <summary>
    /// A level that follows the load rather than judging it (CPU %, allocation rate, work items/s, thread pool
    /// threads): more CPU at more requests/s is not a regression. The per-work costs carry the verdict.
    /// </summary>
    None,
}
