namespace Freight.Bench.Results;

/// <summary>
/// The cost measures a run had: each side's CPU time (always, from the kernel's accounting), and the embedded server's
/// instructions per byte where <c>perf stat -e instructions</c> could count them; <paramref name="InstructionsUnavailable"/>
/// says why not (no perf, no hardware counter, perf_event_paranoid, a --target).
/// </summary>
public sealed record MeasuresOffered(bool CpuTime, bool Instructions, string? InstructionsUnavailable)
{
    public static MeasuresOffered Of(Measure.InstructionCounter counter)
    {
        ArgumentNullException.ThrowIfNull(counter);
        return new(true, counter.Available, counter.Unavailable);
    }

    /// <summary>The console's and the verdicts page's line.</summary>
    public string Describe() =>
        "measures: CPU time per side (every row); server instructions per byte: " + (Instructions ? "yes (perf stat)" : $"no — {InstructionsUnavailable}");
}
