namespace Freight.Bench.Measure;

/// <summary>Why a suite's interleaved runs ended (docs/bench.md, Adaptive runs).</summary>
public enum AdaptiveStop
{
    /// <summary>No runs were added: --max-seconds 0 (the --quick default), or a suite that adds none.</summary>
    Off,

    /// <summary>Every goal with an interval was met or missed: after the minimum runs, or after added ones.</summary>
    Conclusive,

    /// <summary>A goal was still inconclusive when the suite had spent --max-seconds adding runs.</summary>
    TimeCap,

    /// <summary>A goal was still inconclusive at <see cref="InterleavedRuns.MaxRuns"/> runs.</summary>
    Ceiling,
}
