using System.Diagnostics;
using Freight.Bench.Load;
using Freight.Bench.Measure;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Transfer;

/// <summary>
/// Runs <c>--suite transfer</c> (study 1): each scenario's transfers against its server (or the raw TCP probe) for
/// <see cref="BenchOptions.Runs"/> interleaved runs, every transfer verified; then the rows, their efficiency against
/// the probe's median (the ceiling), and issue 2's ratios. The servers and the probe are started by
/// <see cref="BenchRunner"/>, which also chooses the scenarios first (<see cref="Select"/>): they say which servers to start.
/// </summary>
public sealed class TransferSuiteRunner(BenchOptions options, IBenchProgress progress)
{
    /// <summary>
    /// The rows, their ratios, the suite's check (null when no row ran) and the scenarios that failed with why
    /// (the bench names them again after the report).
    /// </summary>
    public async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, SuiteCheck? Check, Dictionary<TransferScenario, string> Failures)> RunAsync(
        IReadOnlyList<TransferScenario> scenarios,
        IReadOnlyDictionary<string, ServerUnderTest> servers,
        TcpLoopbackProbe? probe,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(scenarios);
        ArgumentNullException.ThrowIfNull(servers);
        if (scenarios.Count > 0)
        {
            progress.SuiteStarted(
                TransferSuite.Name,
                $"transfer suite: {CountText.Format(scenarios.Count, "scenario")} × {CountText.Format(options.Runs, "run")} of ≥{options.RunSeconds:0.##} s, payload {options.PayloadBytes / 1048576.0:0.##} MiB",
                InterleavedRuns.PlannedSeconds(scenarios.Count, options));
        }

        var live = progress.Live;
        var measured = await InterleavedRuns.RunAsync(
            scenarios,
            options,
            progress,
            s => (s.RowId, s.Describe()),
            (scenario, seconds) => MeasureAsync(scenario, seconds, scenario.Direction == TransferDirection.Probe ? null : servers[scenario.Server], probe!, live, cancellationToken),
            goals: (samplesSoFar, level) =>
            {
                var rows = scenarios.Select(s => Summarize(s, options.PayloadBytes, samplesSoFar[s], null, null)).ToList();
                return GoalCheck<TransferScenario>.Of(scenarios, rows, TransferRatios.Compute(scenarios, rows), level);
            });
        var (samples, failures) = measured;

        var ceiling = samples.FirstOrDefault(p => p.Key.Direction == TransferDirection.Probe).Value is { Count: > 0 } probeRuns
            ? Summary.Of(probeRuns.Select(s => s.BytesPerSecond).ToList())?.Median
            : null;
        var results = new List<ScenarioResult>();
        foreach (var scenario in scenarios)
        {
            var row = Summarize(scenario, options.PayloadBytes, samples[scenario], failures.GetValueOrDefault(scenario), ceiling);
            results.Add(row);
            progress.RowFinished(row);
        }

        if (scenarios.Count == 0)
        {
            return (results, [], null, failures);
        }

        var ratios = TransferRatios.Compute(scenarios, results).Select(r => r.WithStop(measured.Stop, measured.RunsAdded)).ToList();
        var check = SuiteCheck.Of(TransferSuite.Name, ratios, measured.Stop, measured.Passes, options.MaxSeconds);
        progress.SuiteFinished();
        return (results, ratios, check, failures);
    }

    /// <summary>
    /// The suite's rows this run measures: --full's or the default's, those --filter keeps (and only Freight's own
    /// against a --target), the probe with them; none when only the probe is left, unless it was asked for.
    /// </summary>
    public static List<TransferScenario> Select(BenchOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var all = options.Suites.Contains(TransferSuite.Name) ? TransferSuite.Create(options.Full) : [];
        var selected = all
            .Where(s => s.Direction == TransferDirection.Probe || options.Target is null || s.Server == TransferScenario.FreightServer)
            .Where(s => options.Matches(s.Id) || s.Direction == TransferDirection.Probe)
            .ToList();

        // The probe alone is no transfer suite, unless it was asked for.
        var probeAsked = options.Filter is not null && options.Matches(TransferSuite.ProbeId);
        return selected.Any(s => s.Direction != TransferDirection.Probe) || probeAsked ? selected : [];
    }

    private static async Task<RunSample> MeasureAsync(TransferScenario scenario, double seconds, ServerUnderTest? server, TcpLoopbackProbe probe, LiveCounters live, CancellationToken cancellationToken)
    {
        var perf = server?.Instructions is { } counter ? await counter.StartAsync(cancellationToken) : null;
        var serverBefore = server is null ? null : await server.Metrics.CaptureAsync(cancellationToken);
        var cpuBefore = Environment.CpuUsage.TotalTime;
        var allocatedBefore = GC.GetTotalAllocatedBytes();
        var firstBytes = new List<double>();
        long bytes = 0;
        var count = 0;
        double busy = 0;
        var clock = Stopwatch.StartNew();
        do
        {
            var outcome = server is null
                ? await probe.TransferAsync(cancellationToken)
                : await server.Transfers.RunAsync(scenario, cancellationToken);
            bytes += outcome.Bytes;
            busy += outcome.Seconds;
            count++;
            live.AddVerified(outcome.Bytes);
            if (outcome.TimeToFirstByteSeconds is { } firstByte)
            {
                firstBytes.Add(firstByte);
            }
        }
        while (clock.Elapsed.TotalSeconds < seconds);

        var cpu = (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds;
        var allocated = GC.GetTotalAllocatedBytes() - allocatedBefore;
        var serverAfter = server is null ? null : await server.Metrics.CaptureAsync(cancellationToken);
        var instructions = perf is null ? null : (await perf.StopAsync()).Instructions;
        return new RunSample(bytes, count, busy, Summary.Of(firstBytes)?.Median, cpu, allocated, serverBefore, serverAfter, ServerInstructions: instructions);
    }

    internal static ScenarioResult Summarize(TransferScenario scenario, long payloadBytes, List<RunSample> samples, string? failure, double? ceiling)
    {
        var row = ScenarioSummary.Row(scenario.RowId, TransferSuite.Name, Parameters(scenario, payloadBytes), failure, scenario.Published);
        if (ScenarioSummary.AddTransfers(row, samples, TransferFigures.PerRunCosts | TransferFigures.ServerAllocations | TransferFigures.RuntimeCounters)
            && ceiling is > 0 && scenario.Direction != TransferDirection.Probe)
        {
            row.EfficiencyVsTcp = row.BytesPerSecond!.Median / ceiling;
        }

        return row;
    }

    private static ScenarioParameters Parameters(TransferScenario scenario, long payloadBytes)
    {
        var parameters = new ScenarioParameters
        {
            Label = scenario.Describe(),
            PayloadBytes = payloadBytes,
            ClientBufferBytes = scenario.ClientBufferBytes,
        };
        if (scenario.Direction != TransferDirection.Probe)
        {
            parameters.Scheme = scenario.Scheme;
            parameters.Protocol = scenario.Protocol;
            parameters.Direction = scenario.Direction == TransferDirection.Upload ? "upload" : "download";
            parameters.Server = scenario.Server;
        }

        if (scenario.Direction == TransferDirection.Upload)
        {
            parameters.Source = scenario.Source;
            parameters.ContentLength = scenario.ChunkedBody ? "chunked" : "known";
            parameters.Sink = scenario.Sink;
        }

        return parameters;
    }
}
