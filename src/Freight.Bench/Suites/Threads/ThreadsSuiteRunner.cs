using Freight.Bench.Load.Engine;
using Freight.Bench.Measure;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Lab.Metrics;

namespace Freight.Bench.Suites.Threads;

/// <summary>
/// Runs <c>--suite threads</c> (study 3): each endpoint on a fresh embedded server (a thread pool grown by
/// one scenario must not flatter the next) under the same closed-loop connection ramp, with the server's
/// in-process samples merged into the per-second series.
/// </summary>
public sealed class ThreadsSuiteRunner(BenchOptions options, IBenchProgress progress, string workDirectory, Action<FreightProcess>? pin = null)
{
    /// <summary>Long enough for the slowest response of a starved server; the study saw ~57 s.</summary>
    private static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(120);

    public async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, bool Verified)> RunAsync(CancellationToken cancellationToken)
    {
        var (rampTo, rampSeconds) = (options.ThreadsRampTo, options.ThreadsRampSeconds);
        var scenarios = ThreadsSuite.Create(rampTo, rampSeconds, options.Full)
            .Where(s => options.Matches(s.Id))
            .ToList();
        var checkEngine = options.Matches(EngineCheckId);
        var (engineSeconds, engineRounds) = EngineCheckTiming;
        var anything = scenarios.Count > 0 || checkEngine;
        if (anything)
        {
            progress.SuiteStarted(
                ThreadsSuite.Name,
                $"threads suite: {CountText.Format(scenarios.Count, "scenario")}, each on a fresh server under a ramp to {CountText.Format(rampTo, "connection")} over {rampSeconds:0.##} s{(checkEngine ? ", then the engine check" : "")}",
                // Each scenario: its ramp and about a second to start its server; the check: warm-ups and its rounds.
                (scenarios.Count * (rampSeconds + 1)) + (checkEngine ? EngineCheckWarmupSeconds.Engine + EngineCheckWarmupSeconds.Wrk + (engineRounds * 2 * engineSeconds) : 0));
        }

        var results = new List<ScenarioResult>();
        foreach (var scenario in scenarios)
        {
            progress.StepStarted(new ProgressStep(scenario.Id, scenario.Describe(), "on a fresh server", scenario.RampSeconds + 1, ProgressUnit.Requests) { Begins = true });
            var row = await MeasureAsync(scenario, cancellationToken);
            results.Add(row);
            progress.RowFinished(row);
        }

        if (checkEngine)
        {
            foreach (var row in await CheckEngineAsync(cancellationToken))
            {
                results.Add(row);
                progress.RowFinished(row);
            }
        }

        if (anything)
        {
            progress.SuiteFinished();
        }

        return (results, ThreadsRatios.Compute(results).ToList(), results.All(r => r.Verified));
    }

    /// <summary>
    /// The engine check's rounds: interleaved, medians (the two generators share the machine with the server,
    /// so one round of each can land on a noisy moment). The default keeps --full's three rounds (an interval
    /// needs them) at 2 s: ~100,000 requests a round on /lab/ping here, plenty for a rate.
    /// </summary>
    private (int Seconds, int Rounds) EngineCheckTiming => options.Quick ? (2, 1) : options.Full ? (5, 3) : (2, 3);

    /// <summary>How long each generator warms the check's server before either is measured.</summary>
    private (int Engine, int Wrk) EngineCheckWarmupSeconds => options.Quick ? (1, 1) : options.Full ? (5, 3) : (2, 2);

    /// <summary>The engine against a trivial endpoint, then wrk (when installed) on the same server.</summary>
    public const string EngineCheckId = "load/ping";

    /// <summary>wrk's default-ish connection count for a small machine; the same for both generators.</summary>
    private const int EngineCheckConnections = 32;

    private async Task<List<ScenarioResult>> CheckEngineAsync(CancellationToken cancellationToken)
    {
        var (seconds, rounds) = EngineCheckTiming;
        var (engineWarmup, wrkWarmup) = EngineCheckWarmupSeconds;
        progress.Line($"engine check: {EngineCheckId}, {EngineCheckConnections} connections, {rounds} × ({seconds} s engine, {seconds} s wrk) …");
        await using var server = await FreightProcess.StartServerAsync(Path.Combine(workDirectory, "engine-check"), [], options.TempDirectory, cancellationToken);
        pin?.Invoke(server);
        var target = new Uri(server.Http!, "/lab/ping");
        var label = $"{EngineCheckConnections} conns";
        LoadOptions Load(double duration) => new() { Target = target, Connections = EngineCheckConnections, Duration = TimeSpan.FromSeconds(duration), Monitor = progress.Live.Load };
        // Warm the server (tiered JIT, dynamic PGO) with both generators before either is measured, so
        // neither is compared against a colder server than the other.
        progress.StepStarted(new ProgressStep(EngineCheckId, label, "warm-up", engineWarmup, ProgressUnit.Requests) { Begins = true });
        await LoadEngine.RunAsync(Load(engineWarmup), cancellationToken);
        progress.StepStarted(new ProgressStep("peer/wrk", label, "warm-up", wrkWarmup, ProgressUnit.Requests));
        await Peers.Wrk.MeasureAsync(target, EngineCheckConnections, TimeSpan.FromSeconds(wrkWarmup), cancellationToken);
        var engineRuns = new List<LoadResult>();
        var wrkRates = new List<double>();
        for (var round = 0; round < rounds; round++)
        {
            progress.StepStarted(new ProgressStep(EngineCheckId, label, $"round {round + 1}/{rounds}", seconds, ProgressUnit.Requests));
            engineRuns.Add(await LoadEngine.RunAsync(Load(seconds), cancellationToken));
            progress.StepStarted(new ProgressStep("peer/wrk", label, $"round {round + 1}/{rounds}", seconds, ProgressUnit.Requests));
            if (await Peers.Wrk.MeasureAsync(target, EngineCheckConnections, TimeSpan.FromSeconds(seconds), cancellationToken) is { } rate)
            {
                wrkRates.Add(rate);
            }
        }

        var engine = engineRuns.OrderBy(r => r.RequestsPerSecond).ElementAt(engineRuns.Count / 2);
        var parameters = new ScenarioParameters { Label = $"{EngineCheckConnections} conns {rounds}×{seconds} s", Connections = EngineCheckConnections, Rounds = rounds, Scheme = "http", Protocol = "http/1.1" };
        var check = ScenarioSummary.Row(EngineCheckId, ThreadsSuite.Name, parameters, null);
        check.Runs = rounds;
        check.Transfers = (int)engineRuns.Sum(r => r.Responses);
        check.Verified = engineRuns.All(r => r.Responses > 0 && r.StatusCodes.Keys.All(code => code == 200));
        check.RequestsPerSecond = Summary.OfRuns(engineRuns.Select(r => r.RequestsPerSecond).ToList());
        check.LatencySeconds = WithoutMean(ScenarioSummary.Latency(engine.Latency));
        check.StatusCodes = ScenarioSummary.StatusCodes(engineRuns.SelectMany(r => r.StatusCodes));
        check.SocketErrors = engineRuns.Sum(r => r.SocketErrors);
        check.Timeouts = engineRuns.Sum(r => r.Timeouts);
        check.Errors = engineRuns.Sum(r => r.Errors);
        var rows = new List<ScenarioResult> { check };
        if (wrkRates.Count > 0)
        {
            // wrk reports no per-response status here; its row is a rate, not a verified transfer.
            var wrkParameters = parameters.Copy();
            wrkParameters.Target = EngineCheckId;
            wrkParameters.Threads = 1;
            var wrk = ScenarioSummary.Row("peer/wrk", ThreadsSuite.Name, wrkParameters, null);
            wrk.Runs = wrkRates.Count;
            wrk.RequestsPerSecond = Summary.OfRuns(wrkRates);
            rows.Add(wrk);
        }

        return rows;
    }

    private async Task<ScenarioResult> MeasureAsync(ThreadsScenario scenario, CancellationToken cancellationToken)
    {
        await using var server = await FreightProcess.StartServerAsync(Path.Combine(workDirectory, "threads-" + scenario.Id.Replace('/', '-')), [], options.TempDirectory, cancellationToken);
        pin?.Invoke(server);
        var http = server.Http!;
        var poller = new ServerSamplePoller(http);
        using var stopPolling = new CancellationTokenSource();
        var polling = poller.PollAsync(stopPolling.Token);
        var startedAt = DateTimeOffset.UtcNow;
        var load = await LoadEngine.RunAsync(
            new LoadOptions
            {
                Target = new Uri(http, $"/lab/{scenario.Id}?ms={scenario.DelayMs}"),
                RampFrom = scenario.RampFrom,
                RampTo = scenario.RampTo,
                RampSeconds = scenario.RampSeconds,
                Duration = TimeSpan.FromSeconds(scenario.RampSeconds),
                // Requests queued behind a starved pool finish after the ramp: measure them, up to a bound.
                Drain = RequestTimeout,
                RequestTimeout = RequestTimeout,
                Monitor = progress.Live.Load,
                OnSecond = second =>
                {
                    if (second.Second % 5 == 4)
                    {
                        progress.Detail($"  t={second.Second + 1,3}s  conns {second.Workers,4}  done/s {second.Completions,5}  p99 {second.P99Seconds,6:0.00}s");
                    }
                },
            },
            cancellationToken);
        await stopPolling.CancelAsync();
        await polling;
        await poller.FetchRemainingAsync(cancellationToken);

        return Summarize(scenario, load, poller.Samples, startedAt);
    }

    internal static ScenarioResult Summarize(ThreadsScenario scenario, LoadResult load, IReadOnlyCollection<RuntimeSample> samples, DateTimeOffset startedAt)
    {
        var onlyOk = load.StatusCodes.Keys.All(code => code == 200);
        var row = ScenarioSummary.Row(
            scenario.Id,
            ThreadsSuite.Name,
            new ScenarioParameters
            {
                Label = scenario.Describe(),
                DelayMs = scenario.DelayMs,
                RampFrom = scenario.RampFrom,
                RampTo = scenario.RampTo,
                RampSeconds = scenario.RampSeconds,
                Mode = "closed-loop",
                Scheme = "http",
                Protocol = "http/1.1",
            },
            onlyOk ? null : $"non-200 answers: {string.Join(", ", load.StatusCodes.Keys)}",
            scenario.Published);

        // A load row verifies when every answer was the endpoint's 200; failures are data, counted apart. One ramp is
        // one run: its figures are kept even when it did not verify.
        row.Verified = onlyOk && load.Responses > 0;
        row.Runs = 1;
        row.Transfers = (int)load.Responses;
        row.RequestsPerSecond = new Summary(load.RequestsPerSecond, load.RequestsPerSecond, load.RequestsPerSecond);
        row.LatencySeconds = load.Latency.Count == 0 ? null : WithoutMean(ScenarioSummary.Latency(load.Latency));
        row.StatusCodes = ScenarioSummary.StatusCodes(load.StatusCodes);
        row.SocketErrors = load.SocketErrors;
        row.Timeouts = load.Timeouts;
        row.Errors = load.Errors;
        row.Server = samples.Count == 0 ? null : new SideCost(
            null,
            ThreadPoolThreadsMax: samples.Max(s => s.ThreadPoolThreads),
            WorkingSetBytesMax: samples.Max(s => s.WorkingSetBytes));

        // Connections: the workers the ramp had at each second's end.
        row.Series = SeriesMerger.Merge(load.Series, samples, startedAt);
        return row;
    }

    /// <summary>The threads suite's rows never carried the mean latency (their histograms have it): left out so their JSON stays as it was.</summary>
    private static Percentiles WithoutMean(Percentiles latency) => latency with { Mean = null };
}
