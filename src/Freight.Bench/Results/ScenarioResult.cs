namespace Freight.Bench.Results;

/// <summary>
/// One row of a run: a scenario, the parameters that set it apart (<see cref="ScenarioParameters"/>), its figures over the
/// measured runs, and whether every transfer verified.
/// </summary>
public sealed class ScenarioResult
{
    public required string Scenario { get; init; }

    /// <summary>The suite the row belongs to (<c>transfer</c>, <c>json</c>).</summary>
    public string Suite { get; init; } = "transfer";

    public required ScenarioParameters Parameters { get; init; }

    public int Runs { get; set; }

    public int Transfers { get; set; }

    public bool Verified { get; set; }

    public string? Error { get; set; }

    public Summary? BytesPerSecond { get; set; }

    public Summary? TimeToFirstByteSeconds { get; set; }

    /// <summary>Responses per second over each run (load scenarios).</summary>
    public Summary? RequestsPerSecond { get; set; }

    /// <summary>Time from request to last body byte, over every response (load scenarios).</summary>
    public Percentiles? LatencySeconds { get; set; }

    /// <summary>Median throughput over the raw TCP loopback probe's median (the ceiling).</summary>
    public double? EfficiencyVsTcp { get; set; }

    public SideCost? Server { get; set; }

    /// <summary>Per-second time series of a load scenario: the client's view merged with the server's samples.</summary>
    public List<SeriesPoint>? Series { get; set; }

    /// <summary>Every status code answered (load scenarios), and the failures counted apart.</summary>
    public Dictionary<string, long>? StatusCodes { get; set; }

    public long? SocketErrors { get; set; }

    /// <summary>
    /// Responses that were not what the scenario asked for (load scenarios): a status other than the expected
    /// one, or a body that did not match the expected bytes. Such responses count nowhere else as success.
    /// </summary>
    public long? BadResponses { get; set; }

    /// <summary>Load scenarios: latency of the first response of the first measured run (a fresh connection), as crank's "first request".</summary>
    public double? FirstRequestSeconds { get; set; }

    /// <summary>Load scenarios: the server's runtime counters over the measured runs (crank-style rows); null where the server exposes none.</summary>
    public ServerCounters? Counters { get; set; }

    public long? Timeouts { get; set; }

    public long? Errors { get; set; }

    public SideCost? Client { get; set; }

    /// <summary>
    /// Load scenarios (<c>freight load</c>): failed requests and bad responses by kind — <c>status</c>,
    /// <c>digest</c>, <c>length</c>, <c>reset</c>, <c>timeout</c>, <c>error</c> — with zero kinds left out.
    /// </summary>
    public Dictionary<string, long>? Failures { get; set; }

    /// <summary>Load scenarios: why the first failed request failed, a stable code and the words the summary prints.</summary>
    public FailureReason? FirstFailure { get; set; }

    /// <summary>
    /// <c>freight load</c>: the requests in flight when the run ended, cut, and the body bytes they had received: not in
    /// <see cref="BytesPerSecond"/>, whose bytes are those of responses read whole and verified. Null when none was cut.
    /// </summary>
    public CutResponses? CutAtEnd { get; set; }

    /// <summary><c>freight load</c>: which side saturated, and the figures the verdict came from (docs/load.md, Blame).</summary>
    public LoadBlame? Blame { get; set; }

    public PublishedFigure? Published { get; init; }

    /// <summary>
    /// True, and the row marked not verified, when its scenario failed or completed no run: such a row
    /// carries no figure.
    /// </summary>
    public bool FailsWithoutFigures(int completedRuns)
    {
        if (Error is null && completedRuns > 0)
        {
            return false;
        }

        Verified = false;
        Error ??= "no run completed";
        return true;
    }
}
