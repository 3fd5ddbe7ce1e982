using System.Text.Json;
using System.Text.Json.Serialization;

namespace Freight.Bench.Results;

/// <summary>
/// The result JSON of one bench run (the schema in docs/bench.md): SI units (bytes, seconds), camelCase. Fields may
/// be added; renaming or dropping one needs a migration note in docs/bench.md (Result JSON).
/// </summary>
public sealed class BenchReport
{
    public static readonly JsonSerializerOptions JsonOptions = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    public string Tool { get; init; } = "freight";

    public string Version { get; init; } = typeof(BenchReport).Assembly.GetName().Version?.ToString(3) ?? "0.0.0";

    public DateTimeOffset StartedAt { get; init; }

    public required MachineInfo Machine { get; init; }

    public required BenchSettings Settings { get; init; }

    /// <summary>Which cost measures this machine offered the run (CPU time always; instructions where perf can count them).</summary>
    public MeasuresOffered? Measures { get; init; }

    public bool Verified { get; set; }

    public List<ScenarioResult> Results { get; init; } = [];

    public List<RatioResult> Ratios { get; init; } = [];

    /// <summary>Each suite's A/A control (its noise floor) and why its runs ended (docs/bench.md, A/A control, Adaptive runs).</summary>
    public List<SuiteCheck> SuiteChecks { get; init; } = [];

    /// <summary>True when a suite's A/A interval excludes 1.0: the run's verdicts are not to be trusted (docs/bench.md).</summary>
    public bool Unreliable => SuiteChecks.Exists(c => c.Unreliable);
}
