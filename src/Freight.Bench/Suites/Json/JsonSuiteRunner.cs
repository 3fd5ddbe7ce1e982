using System.Collections.Concurrent;
using System.Diagnostics;
using Freight.Bench.Load;
using Freight.Bench.Measure;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Lab.Metrics;

namespace Freight.Bench.Suites.Json;

/// <summary>
/// Runs <c>--suite json</c> against one server: warm-up, then <see cref="BenchOptions.Runs"/> interleaved
/// runs per scenario, each with <see cref="JsonScenario.Concurrency"/> clients requesting in a loop for at
/// least <see cref="BenchOptions.RunSeconds"/> (every client finishes at least one response).
/// </summary>
public sealed class JsonSuiteRunner(BenchOptions options, IBenchProgress progress, ServerUnderTest server, JsonResponseClient client)
{
    private const double GiB = 1024d * 1024 * 1024;

    public async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, bool Verified, SuiteCheck? Check)> RunAsync(CancellationToken cancellationToken)
    {
        var scenarios = JsonSuite.Create(options.JsonRecords, options.Full)
            .Where(s => options.Matches(s.Id))
            .ToList();
        var bodies = new ConcurrentBag<MemoryStream>();
        if (scenarios.Count > 0)
        {
            progress.SuiteStarted(
                JsonSuite.Name,
                $"json suite: {CountText.Format(scenarios.Count, "scenario")} × {CountText.Format(options.Runs, "run")} of ≥{options.RunSeconds:0.##} s, {CountText.Format(options.JsonRecords, "record")} a response",
                InterleavedRuns.PlannedSeconds(scenarios.Count, options));
        }

        var measured = await InterleavedRuns.RunAsync(
            scenarios,
            options,
            progress,
            s => (s.RowId, s.Describe()),
            (scenario, seconds) => MeasureAsync(scenario, seconds, bodies, cancellationToken),
            goals: (samplesSoFar, level) =>
            {
                var rows = scenarios.Select(s => Summarize(s, samplesSoFar[s], null)).ToList();
                return GoalCheck<JsonScenario>.Of(scenarios, rows, JsonRatios.Compute(rows), level);
            });
        var (samples, failures) = measured;

        var results = scenarios.Select(s => Summarize(s, samples[s], failures.GetValueOrDefault(s))).ToList();
        foreach (var row in results)
        {
            progress.RowFinished(row);
        }

        if (scenarios.Count == 0)
        {
            return (results, [], true, null);
        }

        progress.SuiteFinished();
        var ratios = JsonRatios.Compute(results).Select(r => r.WithStop(measured.Stop, measured.RunsAdded)).ToList();
        return (results, ratios, failures.Count == 0, SuiteCheck.Of(JsonSuite.Name, ratios, measured.Stop, measured.Passes, options.MaxSeconds));
    }

    private async Task<JsonRunSample> MeasureAsync(JsonScenario scenario, double seconds, ConcurrentBag<MemoryStream> bodies, CancellationToken cancellationToken)
    {
        var serverBefore = await server.Metrics.CaptureAsync(cancellationToken);
        var cpuBefore = Environment.CpuUsage.TotalTime;
        var live = progress.Live;
        var clock = Stopwatch.StartNew();
        var workers = new Task<List<JsonOutcome>>[scenario.Concurrency];
        for (var i = 0; i < workers.Length; i++)
        {
            workers[i] = Task.Run(() => WorkAsync(scenario, seconds, clock, bodies, live, cancellationToken), cancellationToken);
        }

        var outcomes = (await Task.WhenAll(workers)).SelectMany(o => o).ToList();
        var wall = clock.Elapsed.TotalSeconds;
        var cpu = (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds;
        var serverAfter = await server.Metrics.CaptureAsync(cancellationToken);
        return new JsonRunSample(outcomes, wall, cpu, serverBefore, serverAfter);
    }

    private async Task<List<JsonOutcome>> WorkAsync(JsonScenario scenario, double seconds, Stopwatch clock, ConcurrentBag<MemoryStream> bodies, LiveCounters live, CancellationToken cancellationToken)
    {
        // Each worker reuses one body buffer (25 MB) across its responses and runs.
        var body = bodies.TryTake(out var reused) ? reused : new MemoryStream();
        try
        {
            var outcomes = new List<JsonOutcome>();
            do
            {
                var outcome = await client.GetAsync(scenario, body, cancellationToken);
                outcomes.Add(outcome);
                live.AddVerified(outcome.Bytes);
            }
            while (clock.Elapsed.TotalSeconds < seconds);
            return outcomes;
        }
        finally
        {
            bodies.Add(body);
        }
    }

    internal static ScenarioResult Summarize(JsonScenario scenario, List<JsonRunSample> samples, string? failure)
    {
        var result = ScenarioSummary.Row(
            scenario.RowId,
            JsonSuite.Name,
            new ScenarioParameters
            {
                Label = scenario.Describe(),
                Records = scenario.Records,
                Concurrency = scenario.Concurrency,
                Scheme = "http",
                Protocol = "http/1.1",
                Direction = "download",
            },
            failure,
            scenario.Published);

        // A figure from a run whose bytes did not verify is not reported.
        if (result.FailsWithoutFigures(samples.Count))
        {
            return result;
        }

        var outcomes = samples.SelectMany(s => s.Outcomes).ToList();
        var bytes = outcomes.Sum(o => o.Bytes);
        var responses = outcomes.Count;
        result.Parameters.BodyBytes = outcomes[0].Bytes;
        result.Runs = samples.Count;
        result.Transfers = responses;
        result.BytesPerSecond = Summary.OfRuns(samples.Select(s => s.Outcomes.Sum(o => o.Bytes) / s.Seconds).ToList());
        result.RequestsPerSecond = Summary.OfRuns(samples.Select(s => s.Outcomes.Count / s.Seconds).ToList());
        result.LatencySeconds = Percentiles.Of(outcomes.Select(o => o.Seconds).ToList())! with
        {
            P50Runs = samples.Select(s => Percentiles.Of(s.Outcomes.Select(o => o.Seconds).ToList())!.P50).ToList(),
        };
        result.TimeToFirstByteSeconds = Summary.Of(outcomes.Select(o => o.TimeToFirstByteSeconds).ToList());
        result.Client = new SideCost(samples.Sum(s => s.ClientCpuSeconds) / (bytes / GiB), CpuSecondsPerResponse: samples.Sum(s => s.ClientCpuSeconds) / responses);
        if (samples.All(s => s.ServerBefore is not null && s.ServerAfter is not null))
        {
            double Delta(Func<RuntimeSnapshot, double> counter) => samples.Sum(s => counter(s.ServerAfter!) - counter(s.ServerBefore!));
            var diskWrites = samples.All(s => s.ServerAfter!.DiskWriteBytes >= 0) ? Delta(m => m.DiskWriteBytes) : (double?)null;
            result.Server = new SideCost(
                Delta(m => m.CpuSeconds) / (bytes / GiB),
                AllocatedBytesPerTransfer: Delta(m => m.AllocatedBytes) / responses,
                Gen0: (int)Delta(m => m.Gen0Collections),
                Gen1: (int)Delta(m => m.Gen1Collections),
                Gen2: (int)Delta(m => m.Gen2Collections),
                ThreadPoolThreadsMax: samples.Max(s => s.ServerAfter!.ThreadPoolThreads),
                DiskBytesWritten: (long?)diskWrites,
                WorkingSetBytesMax: samples.Max(s => s.ServerAfter!.WorkingSetBytes),
                CpuSecondsPerResponse: Delta(m => m.CpuSeconds) / responses,
                DiskBytesWrittenPerResponse: diskWrites / responses)
            {
                AllocatedBytesPerTransferRuns = samples.Select(s => (double)(s.ServerAfter!.AllocatedBytes - s.ServerBefore!.AllocatedBytes) / s.Outcomes.Count).ToList(),
            };
        }

        return result;
    }

    internal sealed record JsonRunSample(List<JsonOutcome> Outcomes, double Seconds, double ClientCpuSeconds, RuntimeSnapshot? ServerBefore, RuntimeSnapshot? ServerAfter);
}
