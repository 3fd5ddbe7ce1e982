using Freight.Bench.Load;
using Freight.Bench.Load.Engine;
using Freight.Bench.Measure;
using Freight.Bench.Peers;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Lab.Metrics;
using Freight.Lab.Payload;

namespace Freight.Bench.Suites.Static;

/// <summary>
/// Runs <c>--suite static</c> (study 4): for each (file size, connections) group, the stock StaticFiles
/// middleware, the stock <c>Results.File</c>, Freight's path and nginx are warmed up, then measured in
/// interleaved rounds under the same keep-alive load. Every response's status and bytes are checked
/// against the file; the server's runtime counters are read around each round and sampled every second.
/// </summary>
public sealed class StaticSuiteRunner(BenchOptions options, IBenchProgress progress, ServerUnderTest server, HttpClient client, string workDirectory, Action<int>? pinProcess = null)
{
    private const double GiB = 1024d * 1024 * 1024;

    /// <summary>The longest a warm-up that saw no response yet goes on for (see MeasureAsync).</summary>
    private const double WarmupPatienceSeconds = 8;

    /// <summary>
    /// Rounds per group and seconds per round. Three rounds give a median and an interval; --full's 2 s hold
    /// 10^4–10^5 requests per round at these sizes, enough for a stable p99, and keep its 56 engine rows near 6
    /// minutes; the default's 12 headline rows get 1 s rounds (still 10^4 requests and more), --quick one round.
    /// Warm-ups stay 1 s but with --quick: on a machine loaded ~25× over (load average 50 on 2 cores, 2026-11-25) a
    /// 0.5-s warm-up of 128 KiB files at 32 connections saw no response and failed its row.
    /// </summary>
    private readonly (int Rounds, double Seconds, double WarmupSeconds) _timing = (
        options.RunsGiven ? options.Runs : options.Quick ? 1 : 3,
        options.RunSecondsGiven ? options.RunSeconds : options.Full ? 2.0 : 1.0,
        options.Quick ? 0.5 : 1.0);

    public async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, bool Verified, SuiteCheck? Check)> RunAsync(CancellationToken cancellationToken)
    {
        var scenarios = StaticSuite.Create(options.Quick, options.Full)
            .Where(s => options.Matches(s.Id))
            .ToList();
        var results = new List<ScenarioResult>();
        if (scenarios.Count == 0)
        {
            return (results, [], true, null);
        }

        var files = StaticSuite.FileSizes.ToDictionary(size => size, size => (ReadOnlyMemory<byte>)DeterministicPayload.Create(size));
        await using var nginx = await StartNginxAsync(scenarios, cancellationToken);
        var wrkInstalled = Wrk.IsInstalled;
        scenarios = scenarios
            .Where(s => (!s.IsPeer || nginx is not null) && (s.Generator != StaticScenario.Wrk || wrkInstalled))
            .ToList();
        var warmedOnce = scenarios.Where(s => s.Generator == StaticScenario.Engine).DistinctBy(s => (s.Id, s.FileBytes)).ToList();
        progress.SuiteStarted(
            StaticSuite.Name,
            $"static suite: {CountText.Format(scenarios.Count, "row")}, {_timing.Rounds} × {_timing.Seconds:0.#} s each after {_timing.WarmupSeconds:0.#} s warm-up; " +
            $"nginx {(nginx is null ? "not installed (scripts/install-peers.sh)" : nginx.Version)}, wrk {(wrkInstalled ? "installed" : "not installed")}",
            ((warmedOnce.Count + scenarios.Count) * _timing.WarmupSeconds) + (scenarios.Count * _timing.Rounds * _timing.Seconds));

        var poller = new ServerSamplePoller(server.Target.Http ?? server.Target.Https!);
        using var stopPolling = new CancellationTokenSource();
        var polling = poller.PollAsync(stopPolling.Token);
        var measured = new Dictionary<StaticScenario, ScenarioRuns>();
        var firstRequests = new Dictionary<(string Id, long FileBytes), double?>();
        try
        {
            // Warm every variant and file once before any group is measured (tiered JIT, dynamic PGO, the
            // file cache), or the first group would be measured against a colder server than the rest. The
            // first response of this pass is crank's "first request": a new connection to a cold path.
            progress.Line($"static: warming every variant and file ({_timing.WarmupSeconds:0.#} s each) …");
            foreach (var row in warmedOnce)
            {
                var warm = new ScenarioRuns();
                await MeasureOrFailAsync(row with { Connections = StaticSuite.GoalConnections }, _timing.WarmupSeconds, warm, warmup: true, "first request and warm-up");
                firstRequests[(row.Id, row.FileBytes)] = warm.FirstRequestSeconds;
            }

            foreach (var group in scenarios.GroupBy(s => (s.FileBytes, s.Connections, s.Generator)))
            {
                var rows = group.ToList();
                progress.Line($"static: {SizeText.Format(group.Key.FileBytes)}, {group.Key.Connections} conns, {group.Key.Generator}: {string.Join(", ", rows.Select(r => r.RowId))}");
                foreach (var row in rows)
                {
                    measured[row] = new ScenarioRuns();
                    await MeasureOrFailAsync(row, _timing.WarmupSeconds, measured[row], warmup: true, "warm-up");
                    measured[row].FirstRequestSeconds = row.Generator == StaticScenario.Engine ? firstRequests.GetValueOrDefault((row.Id, row.FileBytes)) : null;
                }

                for (var round = 0; round < _timing.Rounds; round++)
                {
                    // Each round in its own order, like every suite's passes: no row always follows the same neighbour.
                    foreach (var row in InterleavedRuns.InPassOrder(rows, round + 1))
                    {
                        await MeasureOrFailAsync(row, _timing.Seconds, measured[row], warmup: false, $"round {round + 1}/{_timing.Rounds}");
                    }
                }

                // The group's rows are measured: their figures show now (the server's counters, which need every
                // sample, only in the final rows).
                foreach (var row in rows)
                {
                    progress.RowFinished(Summarize(row, measured[row], []));
                }
            }
        }
        finally
        {
            await stopPolling.CancelAsync();
            await polling;
        }

        await poller.FetchRemainingAsync(cancellationToken);
        foreach (var scenario in scenarios)
        {
            results.Add(Summarize(scenario, measured[scenario], poller.Samples));
        }

        progress.SuiteFinished();

        // No runs are added here: rounds run group by group (one file size and connection count at a time), and an
        // added round of one goal would need its whole group measured again (docs/bench.md, Adaptive runs).
        var ratios = StaticRatios.Compute(results).Select(r => r.WithStop(AdaptiveStop.Off)).ToList();
        return (results, ratios, results.All(r => r.Verified), SuiteCheck.Of(StaticSuite.Name, ratios, AdaptiveStop.Off, _timing.Rounds, 0));

        async Task MeasureOrFailAsync(StaticScenario scenario, double seconds, ScenarioRuns runs, bool warmup, string phase)
        {
            if (runs.Failure is not null)
            {
                return;
            }

            progress.StepStarted(new ProgressStep(scenario.RowId, scenario.Describe(), phase, seconds, ProgressUnit.Requests) { Begins = phase == "warm-up" });
            try
            {
                var run = await MeasureAsync(scenario, seconds, files[scenario.FileBytes], nginx, warmup, cancellationToken);
                if (warmup)
                {
                    runs.FirstRequestSeconds = run.FirstResponseSeconds;
                }
                else
                {
                    runs.Runs.Add(run);
                }
            }
            catch (Exception failure) when (failure is VerificationException or HttpRequestException or IOException)
            {
                runs.Failure = failure.Message;
                progress.Live.AddFailed();
                progress.Line($"FAILED {scenario.RowId} ({scenario.Describe()}): {failure.Message}");
            }
        }
    }

    private async Task<NginxServer?> StartNginxAsync(List<StaticScenario> scenarios, CancellationToken cancellationToken)
    {
        if (!scenarios.Any(s => s.IsPeer))
        {
            return null;
        }

        // nginx serves its own copy of the same deterministic files, so it works with --target too.
        var root = Path.Combine(workDirectory, "nginx-static");
        foreach (var size in StaticSuite.FileSizes)
        {
            DeterministicPayload.WriteFile(Path.Combine(root, FormattableString.Invariant($"{size}.bin")), size);
        }

        var nginx = await Nginx.StartAsync(new NginxSiteOptions { RootDirectory = root, WorkDirectory = Path.Combine(workDirectory, "nginx") }, cancellationToken);
        if (nginx is not null)
        {
            pinProcess?.Invoke(nginx.ProcessId);
        }

        return nginx;
    }

    /// <param name="warmup">
    /// A warm-up that saw no response and no failure warms on, twice as long each time, up to
    /// <see cref="WarmupPatienceSeconds"/>: a CI run loaded with other tests saw a --quick 0.5 s warm-up of 1 MiB files at
    /// 32 connections, on a server warmed a moment before, end without a response and fail its row. Its first response
    /// is then unknown (null): the first attempt's requests were cut unanswered.
    /// </param>
    private async Task<StaticRun> MeasureAsync(StaticScenario scenario, double seconds, ReadOnlyMemory<byte> file, NginxServer? nginx, bool warmup, CancellationToken cancellationToken)
    {
        var baseAddress = scenario.IsPeer ? nginx!.BaseAddress : server.Target.Http ?? throw new VerificationException("the static suite needs an http:// target");
        var target = new Uri(baseAddress, scenario.Path);
        var duration = TimeSpan.FromSeconds(seconds);

        var serverBefore = scenario.IsPeer ? null : await server.Metrics.CaptureAsync(cancellationToken);
        var peerBefore = scenario.IsPeer ? ProcessStatSnapshot.Capture(nginx!.ProcessId) : null;
        var clientCpuBefore = Environment.CpuUsage.TotalTime;
        var startedAt = DateTimeOffset.UtcNow;

        StaticRun run;
        double? wrkCpu = null;
        if (scenario.Generator == StaticScenario.Wrk)
        {
            var wrk = await Wrk.RunAsync(target, scenario.Connections, duration, cancellationToken)
                ?? throw new VerificationException("wrk printed no result");
            wrkCpu = wrk.CpuSeconds;
            await VerifyWrkRoundAsync(client, wrk, target, file, cancellationToken);
            progress.Live.AddVerified(wrk.Requests * file.Length, wrk.Requests);
            run = new StaticRun(wrk.RequestsPerSecond, wrk.Requests * (double)file.Length / wrk.DurationSeconds, wrk.Requests, null, null,
                new Dictionary<int, long> { [200] = wrk.Requests }, wrk.SocketErrors, 0, 0, 0, null)
            {
                WrkLatency = wrk.Latency,
            };
        }
        else
        {
            var options = new LoadOptions
            {
                Target = target,
                Connections = scenario.Connections,
                Duration = duration,
                ExpectedStatusCode = 200,
                ExpectedBody = file,
                Monitor = progress.Live.Load,
            };
            var load = await LoadEngine.RunAsync(options, cancellationToken);
            var retried = false;
            while (warmup && load is { Responses: 0, BadResponses: 0, FirstFailure: null } && duration.TotalSeconds * 2 <= WarmupPatienceSeconds)
            {
                duration *= 2;
                options = options with { Duration = duration };
                load = await LoadEngine.RunAsync(options, cancellationToken);
                retried = true;
            }

            if (retried)
            {
                load = load with { FirstResponseSeconds = null };
            }

            if (load.BadResponses > 0 || load.Responses == 0)
            {
                throw new VerificationException(load.Responses == 0
                    ? $"no response in {duration.TotalSeconds:0.#} s ({load.FirstFailure?.Message ?? "no error"})"
                    : $"{load.BadResponses} of {load.Responses} responses were not the file's exact bytes with status 200 (statuses: {string.Join(", ", load.StatusCodes.Select(c => $"{c.Key}×{c.Value}"))})");
            }

            run = new StaticRun(load.RequestsPerSecond, load.BodyBytes / load.Elapsed.TotalSeconds, load.Responses, load.Histogram, load.FirstResponseSeconds,
                load.StatusCodes, load.SocketErrors, load.Timeouts, load.Errors, load.BadResponses, null)
            {
                PerSecond = load.Series,
            };
        }

        var endedAt = DateTimeOffset.UtcNow;
        // A wrk row's client is wrk, not this process (which only waited for it, then checked a GET).
        var clientCpu = wrkCpu ?? (Environment.CpuUsage.TotalTime - clientCpuBefore).TotalSeconds;
        var serverAfter = scenario.IsPeer ? null : await server.Metrics.CaptureAsync(cancellationToken);
        var peerAfter = scenario.IsPeer ? ProcessStatSnapshot.Capture(nginx!.ProcessId) : null;
        return run with
        {
            StartedAt = startedAt,
            ClientCpuSeconds = clientCpu,
            Window = serverBefore is not null && serverAfter is not null ? new MeasuredWindow(serverBefore, serverAfter, startedAt, endedAt) : null,
            PeerWindow = peerBefore is not null && peerAfter is not null ? (peerBefore, peerAfter) : null,
        };
    }

    /// <summary>
    /// What a wrk round can be held to, since wrk reads bodies without checking them: no answer other than 2xx (socket
    /// errors are counted in the row, as the engine's are), as many bytes read as its responses need (each the file plus a head of at most
    /// <see cref="MaxHeadBytes"/>, with the 1 % rounding of wrk's printed total and the bodies still in flight when it
    /// stopped), and, right after the round, one GET of the same URL (by the bench's shared <paramref name="client"/>) whose
    /// body is the file byte for byte.
    /// </summary>
    internal static async Task VerifyWrkRoundAsync(HttpClient client, WrkResult wrk, Uri target, ReadOnlyMemory<byte> file, CancellationToken cancellationToken)
    {
        if (wrk.Requests == 0 || wrk.Non2xxResponses > 0)
        {
            throw new VerificationException($"wrk saw {wrk.Non2xxResponses} non-2xx answers of {wrk.Requests}");
        }

        var least = wrk.Requests * (double)file.Length * 0.99;
        var most = ((wrk.Requests + wrk.Connections) * (double)(file.Length + MaxHeadBytes)) * 1.01;
        if (wrk.BytesRead < least || wrk.BytesRead > most)
        {
            throw new VerificationException($"wrk read {wrk.BytesRead} bytes for {wrk.Requests} responses of a {file.Length}-byte file");
        }

        var body = await client.GetByteArrayAsync(target, cancellationToken);
        if (!body.AsSpan().SequenceEqual(file.Span))
        {
            throw new VerificationException($"after the wrk round, GET {target} answered {body.Length} bytes that are not the file's");
        }
    }

    /// <summary>The most a static response's status line and headers take (Freight's and nginx's are ~250 bytes).</summary>
    private const int MaxHeadBytes = 1024;

    internal static ScenarioResult Summarize(StaticScenario scenario, ScenarioRuns runs, IReadOnlyCollection<RuntimeSample> samples)
    {
        var result = ScenarioSummary.Row(
            scenario.RowId,
            StaticSuite.Name,
            new ScenarioParameters
            {
                Label = scenario.Describe(),
                FileBytes = scenario.FileBytes,
                Connections = scenario.Connections,
                Generator = scenario.Generator,
                Server = scenario.IsPeer ? "nginx" : "freight",
                Scheme = "http",
                Protocol = "http/1.1",
                Mode = "closed-loop",
            },
            runs.Failure,
            scenario.Published);
        if (result.FailsWithoutFigures(runs.Runs.Count))
        {
            return result;
        }

        var list = runs.Runs;
        result.Runs = list.Count;
        result.Transfers = (int)Math.Min(int.MaxValue, list.Sum(r => r.Responses));
        result.RequestsPerSecond = Summary.OfRuns(list.Select(r => r.RequestsPerSecond).ToList());
        result.BytesPerSecond = Summary.OfRuns(list.Select(r => r.BytesPerSecond).ToList());
        result.FirstRequestSeconds = runs.FirstRequestSeconds;
        result.StatusCodes = ScenarioSummary.StatusCodes(list.SelectMany(r => r.StatusCodes));
        result.SocketErrors = list.Sum(r => r.SocketErrors);
        result.Timeouts = list.Sum(r => r.Timeouts);
        result.Errors = list.Sum(r => r.Errors);
        result.BadResponses = list.All(r => r.BadResponses is not null) ? list.Sum(r => r.BadResponses!.Value) : null;

        if (list.All(r => r.Histogram is not null))
        {
            var merged = new LatencyHistogram();
            foreach (var run in list)
            {
                merged.Merge(run.Histogram!);
            }

            result.LatencySeconds = ScenarioSummary.Latency(merged.Summarize());
        }
        else
        {
            // wrk: the median round's percentiles (its histograms cannot be merged from its text output).
            result.LatencySeconds = list.OrderBy(r => r.RequestsPerSecond).ElementAt(list.Count / 2).WrkLatency;
        }

        var bytes = list.Sum(r => r.BytesPerSecond * r.Seconds);
        result.Client = new SideCost(bytes > 0 ? list.Sum(r => r.ClientCpuSeconds) / (bytes / GiB) : null, CpuSecondsPerResponse: list.Sum(r => r.ClientCpuSeconds) / list.Sum(r => r.Responses));
        if (list.All(r => r.Window is not null))
        {
            var windows = list.Select(r => r.Window!).ToList();
            result.Counters = ServerCountersCalculator.Compute(windows, samples);
            var serverCpu = windows.Sum(w => w.After.CpuSeconds - w.Before.CpuSeconds);
            var allocated = windows.Sum(w => (double)(w.After.AllocatedBytes - w.Before.AllocatedBytes));
            var responses = list.Sum(r => r.Responses);
            result.Server = new SideCost(
                bytes > 0 ? serverCpu / (bytes / GiB) : null,
                AllocatedBytesPerTransfer: allocated / responses,
                Gen0: windows.Sum(w => w.After.Gen0Collections - w.Before.Gen0Collections),
                Gen1: windows.Sum(w => w.After.Gen1Collections - w.Before.Gen1Collections),
                Gen2: windows.Sum(w => w.After.Gen2Collections - w.Before.Gen2Collections),
                ThreadPoolThreadsMax: result.Counters.ThreadPoolThreads,
                WorkingSetBytesMax: result.Counters.WorkingSetBytes,
                CpuSecondsPerResponse: serverCpu / responses)
            {
                // Each round's own bytes allocated per response, from that round's window: what the allocation goals'
                // paired interval is drawn from (round i of one row beside round i of the other).
                AllocatedBytesPerTransferRuns = [.. list.Select(r => (r.Window!.After.AllocatedBytes - r.Window.Before.AllocatedBytes) / (double)r.Responses)],
            };
        }
        else if (list.All(r => r.PeerWindow is not null))
        {
            result.Counters = ServerCountersCalculator.Compute(list.Select(r => r.PeerWindow!.Value).ToList());
            var serverCpu = list.Sum(r => r.PeerWindow!.Value.After.CpuSeconds - r.PeerWindow!.Value.Before.CpuSeconds);
            result.Server = new SideCost(bytes > 0 ? serverCpu / (bytes / GiB) : null, WorkingSetBytesMax: result.Counters.WorkingSetBytes, CpuSecondsPerResponse: serverCpu / list.Sum(r => r.Responses));
        }

        result.Series = Series(scenario, list, samples);
        return result;
    }

    /// <summary>The span from which a round's second counts as whole (see <see cref="Series"/>).</summary>
    private const double WholeSecond = 0.9;

    /// <summary>
    /// The load engine's seconds of every measured round in order, numbered on (round 1 seconds 0–1, round 2
    /// seconds 2–3, …), each with the server's sample taken in that second of that round. Only whole seconds:
    /// a round's partial last second (the few responses that finish just after its duration, over a few
    /// milliseconds, or the half of a 2.5 s round) counts responses over a fraction of a second, so it would
    /// plot as a false dip in responses per second, and rarely holds a server sample; a round shorter than a
    /// second adds no point. "Whole" allows for the duration timer, which can end a round a few milliseconds
    /// before the engine's clock reaches the second's end. nginx rows have the engine's view alone (the
    /// samples are Freight's process); wrk rows have none (wrk prints no per-second figures): null.
    /// </summary>
    private static List<SeriesPoint>? Series(StaticScenario scenario, List<StaticRun> runs, IReadOnlyCollection<RuntimeSample> samples)
    {
        var series = new List<SeriesPoint>();
        foreach (var run in runs.Where(r => r.PerSecond is not null))
        {
            var whole = run.PerSecond!.Where(s => s.SpanSeconds >= WholeSecond).ToList();
            series.AddRange(SeriesMerger.Merge(whole, scenario.IsPeer ? [] : samples, run.StartedAt, series.Count, scenario.Connections));
        }

        return series.Count > 0 ? series : null;
    }

    /// <summary>What one scenario gathered: its measured rounds, the warm-up's first request, or why it failed.</summary>
    internal sealed class ScenarioRuns
    {
        public List<StaticRun> Runs { get; } = [];

        public double? FirstRequestSeconds { get; set; }

        public string? Failure { get; set; }
    }

    /// <summary>One measured round of one scenario.</summary>
    internal sealed record StaticRun(
        double RequestsPerSecond,
        double BytesPerSecond,
        long Responses,
        LatencyHistogram? Histogram,
        double? FirstResponseSeconds,
        IReadOnlyDictionary<int, long> StatusCodes,
        long SocketErrors,
        long Timeouts,
        long Errors,
        long? BadResponses,
        MeasuredWindow? Window)
    {
        public double Seconds => RequestsPerSecond > 0 ? Responses / RequestsPerSecond : 0;

        public double ClientCpuSeconds { get; init; }

        public (ProcessStatSnapshot Before, ProcessStatSnapshot After)? PeerWindow { get; init; }

        public Percentiles? WrkLatency { get; init; }

        /// <summary>The load engine's per-second view of the round (null for wrk).</summary>
        public IReadOnlyList<LoadSecond>? PerSecond { get; init; }

        /// <summary>When the round started, on the clock of the server's samples (the same machine's).</summary>
        public DateTimeOffset StartedAt { get; init; }
    }
}
