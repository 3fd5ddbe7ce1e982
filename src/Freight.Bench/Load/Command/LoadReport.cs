using System.Globalization;
using Freight.Bench.Client;
using Freight.Bench.Load.Blame;
using Freight.Bench.Load.Engine;
using Freight.Bench.Measure;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Suites;
using Freight.Lab.Metrics;

namespace Freight.Bench.Load.Command;

/// <summary>
/// Turns one <c>freight load</c> run into the bench's result model (one row, scenario <c>load/&lt;method&gt;</c>),
/// so <c>freight compare</c> and <c>freight report</c> read it like any bench result, and prints its summary.
/// </summary>
public static class LoadReport
{
    private const double GiB = 1024.0 * 1024 * 1024;
    private const double MiB = 1024.0 * 1024;

    /// <summary>Why a .NET server's run has no runtime figures though its session was open (<see cref="RuntimeCounterWatch.StopAfterAsync"/>).</summary>
    private static readonly string NoSample = string.Create(CultureInfo.InvariantCulture,
        $"no sample arrived: the server sent no counters during the run or in the {RuntimeCounterWatch.ClosingPollWait.TotalSeconds:0.#} s after it");

    /// <summary>
    /// Bytes a run must move for a CPU-per-GiB figure on either side: the run's fixed CPU (start-up: JIT, connecting;
    /// ~0.08 s here) over a few KiB read as 400,000 s/GiB; over 64 MiB it is at most ~1 s/GiB, and over a GiB a tenth.
    /// </summary>
    internal const long MinimumCostBytes = 64L << 20;

    public static BenchReport Build(LoadSettings settings, LoadMeasurements measured)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(measured);
        if (measured.Runs.Count == 0)
        {
            throw new ArgumentException("A report needs at least one run.", nameof(measured));
        }

        var options = settings.Engine;
        var runs = measured.Runs;
        var result = Combine([.. runs.Select(r => r.Result)]);
        var seconds = Math.Max(result.Elapsed.TotalSeconds, 1e-9);

        // Bytes moved: response bodies read plus the request bodies of the requests that were answered.
        var bytes = Moved(options, result);
        var failures = FailuresByKind(result);
        var verified = result.Responses > 0 && failures.Count == 0;

        // The bench's summary path: the row's head, status counts and latency percentiles as every suite's; rates one a run.
        var row = ScenarioSummary.Row("load/" + options.Method.Method.ToLowerInvariant(), "load", Parameters(settings), verified ? null : Describe(result, failures));
        row.Runs = runs.Count;
        row.Transfers = (int)Math.Min(int.MaxValue, result.Responses);

        // No rate from no completion: a run cut before any response ended moved bytes that were never verified.
        if (result.Responses > 0)
        {
            row.BytesPerSecond = Summary.OfRuns([.. runs.Select(r => Moved(options, r.Result) / Math.Max(r.Result.Elapsed.TotalSeconds, 1e-9))]);
            row.RequestsPerSecond = Summary.OfRuns([.. runs.Select(r => r.Result.RequestsPerSecond)]);
        }

        if (result.CancelledAtEnd > 0)
        {
            row.CutAtEnd = new CutResponses(result.CancelledAtEnd, result.CutBodyBytes, result.CutDeclaredBytes > 0 ? result.CutDeclaredBytes : null);
        }

        row.StatusCodes = ScenarioSummary.StatusCodes(result.StatusCodes);
        row.SocketErrors = result.SocketErrors;
        row.Timeouts = result.Timeouts;
        row.Errors = result.Errors + result.LengthFailures;
        row.BadResponses = result.BadResponses;
        row.FirstRequestSeconds = result.FirstResponseSeconds;
        row.Failures = failures;
        row.FirstFailure = result.FirstFailure;
        if (result.Responses > 0)
        {
            row.LatencySeconds = ScenarioSummary.Latency(result.Latency) with
            {
                P50Runs = runs.All(r => r.Result.Responses > 0) ? [.. runs.Select(r => r.Result.Latency.P50Seconds)] : null,
                P99Runs = runs.All(r => r.Result.Responses > 0) ? [.. runs.Select(r => r.Result.Latency.P99Seconds)] : null,
            };
        }

        var clientCpuSeconds = runs.Sum(r => r.ClientCpuSeconds);
        var clientRss = MaxRss(measured.ClientSamples);
        var costsPerGiB = bytes >= MinimumCostBytes;

        // A cost a run only where every run moved enough for one (MinimumCostBytes): else no interval is drawn from them.
        var costsPerRun = runs.All(r => Moved(options, r.Result) >= MinimumCostBytes);
        row.Client = new SideCost(
            costsPerGiB ? clientCpuSeconds / (bytes / GiB) : null,
            WorkingSetBytesMax: clientRss,
            CpuSecondsPerResponse: result.Responses > 0 ? clientCpuSeconds / result.Responses : null)
        {
            CpuSecondsPerGiBSamples = costsPerRun ? [.. runs.Select(r => r.ClientCpuSeconds / (Moved(options, r.Result) / GiB))] : null,
        };

        var startedAt = runs[0].StartedAt;
        var end = runs[^1].StartedAt + runs[^1].Result.Elapsed;
        // The server and the proxy alike: their CPU within the runs, each run's apart (the samples go on between runs).
        var serverRuns = CpuWithinRuns(measured.ServerSamples, runs);
        var server = CpuOverRuns(measured.ServerSamples, serverRuns, seconds);
        var proxyRuns = CpuWithinRuns(measured.ProxySamples, runs);
        var proxy = CpuOverRuns(measured.ProxySamples, proxyRuns, seconds);
        var window = measured.RuntimeCounters is { } values ? Within(values, startedAt, end) : null;
        var counters = window?.Values;
        var queue = counters?.Where(v => v.Name == "threadpool-queue-length").Select(v => v.Value).ToList();
        if (server is { } cpu)
        {
            row.Counters = Counters(cpu, measured.ServerSamples!, window, seconds);
            row.Server = new SideCost(
                costsPerGiB ? cpu.Seconds / (bytes / GiB) : null,
                Gen0: row.Counters.Gen0Collections,
                Gen1: row.Counters.Gen1Collections,
                Gen2: row.Counters.Gen2Collections,
                ThreadPoolThreadsMax: row.Counters.ThreadPoolThreads,
                WorkingSetBytesMax: row.Counters.WorkingSetBytes,
                CpuSecondsPerResponse: result.Responses > 0 ? cpu.Seconds / result.Responses : null)
            {
                CpuSecondsPerGiBSamples = costsPerRun ? CostPerRun(cpu, serverRuns) : null,
            };
        }

        // Each run's CPU per GiB: the run's own CPU over its own bytes, or the one run's.
        List<double> CostPerRun(ServerCpuUse cpu, List<double>? perRun) =>
            perRun is null ? [cpu.Seconds / (bytes / GiB)] : [.. runs.Select((r, i) => perRun[i] / (Moved(options, r.Result) / GiB))];

        var inputs = new SaturationInputs(clientCpuSeconds / seconds, server?.Cores, server?.AllowedCpus, queue is { Count: > 0 } ? queue : null,
            result.Responses + result.Timeouts + result.CancelledAtEnd, result.Elapsed.TotalSeconds)
        {
            ClientAllowedCpus = measured.ClientSamples.LastOrDefault()?.AllowedCpus ?? Environment.ProcessorCount,
            ServerProcessId = measured.ServerExitedProcessId ?? settings.ServerProcessId,
            ServerExited = measured.ServerExited,
            Gc = counters is { Count: > 0 } ? new GcPressure(TimeInGcPercent(counters, seconds), row.Counters?.Gen2Collections, row.Counters?.AllocationBytesPerSecond) : null,
            OthersCpuCores = OthersCpu(measured, clientCpuSeconds, server, proxy),
            MachineCpus = measured.MachineAfter?.Cpus,
            ProxyCpuCores = proxy?.Cores,
            ProxyAllowedCpus = proxy?.AllowedCpus,
            ProxyBusiestThread = measured.ProxyMembers?.Where(m => m.Threads == 1).OrderByDescending(m => m.CpuCores).Select(m => ((int, double)?)(m.ProcessId, m.CpuCores)).FirstOrDefault(),
            ProxyProcessId = measured.ProxyExitedProcessId ?? settings.ProxyProcessId,
            ProxyExited = measured.ProxyExitedProcessId is not null,
        };
        var saturation = SaturationRule.Judge(inputs);
        row.Blame = new LoadBlame(saturation.Id, saturation.Reason, inputs.ClientCpuCores, inputs.ServerCpuCores, inputs.ServerAllowedCpus,
            settings.ServerProcessId, inputs.ThreadPoolQueueLengths,
            settings.ServerProcessId is null ? null : measured.RuntimeCounters is null ? measured.RuntimeCountersNote
                : counters is { Count: > 0 } ? "eventpipe" : NoSample)
        {
            ClientWorkingSetBytesFirst = measured.ClientSamples.Count > 0 ? measured.ClientSamples[0].WorkingSetBytes : null,
            ServerThreadsMax = measured.ServerSamples is { Count: > 0 } sampled ? sampled.Max(s => s.Threads) : null,
            ServerWorkerProcessIds = Workers(measured.ServerWorkers ?? settings.ServerWorkers),
            ClientAllowedCpus = inputs.ClientAllowedCpus,
            ServerExited = inputs.ServerExited ? true : null,
            GcTimePercent = inputs.Gc?.TimeInGcPercent,
            OthersCpuCores = inputs.OthersCpuCores,
            MachineCpus = inputs.MachineCpus,
            Proxy = settings.ProxyProcessId is { } proxyPid ? new LoadProxy(proxyPid, proxy?.Cores, proxy?.AllowedCpus)
            {
                WorkerProcessIds = Workers(measured.ProxyWorkers ?? settings.ProxyWorkers),
                CpuSecondsPerGiB = proxy is not null && costsPerGiB ? proxy.Seconds / (bytes / GiB) : null,
                CpuSecondsPerGiBSamples = proxy is not null && costsPerRun ? CostPerRun(proxy, proxyRuns) : null,
                CpuSecondsPerResponse = proxy is not null && result.Responses > 0 ? proxy.Seconds / result.Responses : null,
                WorkingSetBytesMax = measured.ProxySamples is { } sampledProxy ? MaxRss(sampledProxy) : null,
                ThreadsMax = measured.ProxySamples is { Count: > 0 } threads ? threads.Max(t => t.Threads) : null,
                Exited = inputs.ProxyExited ? true : null,
            } : null,
        };

        // One series: each run's seconds numbered on from the last run's.
        var serverSeconds = measured.ServerSamples is { } serverSamples ? PerSecond(serverSamples, counters ?? []) : [];
        var series = new List<SeriesPoint>();
        foreach (var run in runs)
        {
            series.AddRange(SeriesMerger.Merge(
                run.Result.Series.Where(second => second.SpanSeconds >= 0.9),
                serverSeconds,
                run.StartedAt,
                firstSecond: series.Count,
                connections: options.Mode == LoadMode.ClosedLoop ? options.Connections : null));
        }

        row.Series = series;

        // What a request moved: its body, or for a GET the mean response body (readers size the run by it).
        var payload = options.Body?.Length ?? (result.Responses > 0 ? (long)Math.Round((double)result.BodyBytes / result.Responses) : 0);
        return new BenchReport
        {
            StartedAt = startedAt,
            Machine = MachineInfo.Current(),
            Settings = new BenchSettings(["load"], false, runs.Count, seconds / runs.Count, 0, payload, false, options.Target.ToString()),
            Verified = verified,
            Results = [row],
        };
    }

    /// <summary>Response bodies read plus the request bodies of the requests that were answered.</summary>
    // A response answered before its request's body had gone (a 413) moved no request body.
    private static double Moved(LoadOptions options, LoadResult result) => result.BodyBytes + ((options.Body?.Length ?? 0) * (double)(result.Responses - result.AnsweredBeforeBody));

    /// <summary>
    /// The runs as one: counts summed, histograms merged, the first run's first response and failure. One run is itself.
    /// </summary>
    internal static LoadResult Combine(IReadOnlyList<LoadResult> runs)
    {
        if (runs.Count == 1)
        {
            return runs[0];
        }

        var histogram = new LatencyHistogram();
        var statusCodes = new Dictionary<int, long>();
        foreach (var run in runs)
        {
            histogram.Merge(run.Histogram);
            foreach (var (code, count) in run.StatusCodes)
            {
                statusCodes[code] = statusCodes.GetValueOrDefault(code) + count;
            }
        }

        var elapsed = TimeSpan.FromTicks(runs.Sum(r => r.Elapsed.Ticks));
        var responses = runs.Sum(r => r.Responses);
        return new LoadResult
        {
            Mode = runs[0].Mode,
            StopReason = runs[^1].StopReason,
            Elapsed = elapsed,
            Responses = responses,
            StatusCodes = statusCodes,
            SocketErrors = runs.Sum(r => r.SocketErrors),
            Timeouts = runs.Sum(r => r.Timeouts),
            Errors = runs.Sum(r => r.Errors),
            LengthFailures = runs.Sum(r => r.LengthFailures),
            LengthMismatches = runs.Sum(r => r.LengthMismatches),
            Dropped = runs.Sum(r => r.Dropped),
            CancelledAtEnd = runs.Sum(r => r.CancelledAtEnd),
            BodyBytes = runs.Sum(r => r.BodyBytes),
            CutBodyBytes = runs.Sum(r => r.CutBodyBytes),
            CutDeclaredBytes = runs.Max(r => r.CutDeclaredBytes),
            BadResponses = runs.Sum(r => r.BadResponses),
            AnsweredBeforeBody = runs.Sum(r => r.AnsweredBeforeBody),
            BodyMismatches = runs.Sum(r => r.BodyMismatches),
            FirstResponseSeconds = runs[0].FirstResponseSeconds,
            RequestsPerSecond = responses / Math.Max(elapsed.TotalSeconds, 1e-9),
            Latency = histogram.Summarize(),
            Histogram = histogram,
            Series = [.. runs.SelectMany(r => r.Series)],
            FirstFailure = runs.Select(r => r.FirstFailure).FirstOrDefault(f => f is not null),
        };
    }

    /// <summary>The summary on standard output: what ran, rates, latency, failures by kind, each side's cost, the verdict.</summary>
    public static async Task PrintAsync(LoadSettings settings, ScenarioResult row, LoadResult result, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(row);
        ArgumentNullException.ThrowIfNull(result);
        ArgumentNullException.ThrowIfNull(output);
        var p = row.Parameters;
        var text = new System.Text.StringBuilder();
        var runs = row.Runs > 1 ? string.Create(CultureInfo.InvariantCulture, $"{row.Runs} runs, ") : "";
        text.AppendLine(CultureInfo.InvariantCulture, $"{row.Scenario}  {p.Url}  {p.Protocol}, {CountText.Format(p.Connections.GetValueOrDefault(), "connection")}, {p.Mode}, {runs}{result.Elapsed.TotalSeconds:0.00} s");
        var statuses = result.StatusCodes.Count == 0 ? "" : $" ({StatusList(result)})";
        var moved = Moved(settings.Engine, result);
        text.AppendLine(result.Responses == 0
            ? "responses  0" + NoneCompleted(result)
            : string.Create(CultureInfo.InvariantCulture,
                $"responses  {result.Responses:N0}{statuses}  {result.RequestsPerSecond:N1} req/s  {moved / Math.Max(result.Elapsed.TotalSeconds, 1e-9) / MiB:N1} MiB/s"));
        if (CutLine(settings, result) is { } cut)
        {
            text.AppendLine(cut);
        }

        if (row.Runs > 1)
        {
            text.AppendLine(Spread(row));
        }

        if (row.LatencySeconds is { } l)
        {
            text.AppendLine(CultureInfo.InvariantCulture,
                $"latency    p50 {l.P50 * 1000:0.###} ms  p90 {l.P90 * 1000:0.###} ms  p99 {l.P99 * 1000:0.###} ms  max {l.Max * 1000:0.###} ms{(result.Mode == LoadMode.OpenLoop ? " (from each request's due time)" : "")}");
        }

        text.AppendLine(row.Failures is { Count: > 0 } failures
            ? $"failures   {string.Join(", ", failures.Select(f => $"{f.Key} {f.Value:N0}"))}{(result.FirstFailure is { } first ? $" — first: {first.Message}" : "")}"
            : "failures   none");
        if (NoSuccess(settings, result) is { } warning)
        {
            text.AppendLine(warning);
        }

        var blame = row.Blame!;
        text.AppendLine(CultureInfo.InvariantCulture,
            $"client     {Cost(row.Client, moved, result)}, {SaturationRule.Share(blame.ClientCpuCores, blame.ClientAllowedCpus ?? 1)}, RSS max {Mib(row.Client?.WorkingSetBytesMax)}");
        if (row.Counters is { } c)
        {
            var processes = blame.ServerWorkerProcessIds is { Count: > 0 } workers ? string.Create(CultureInfo.InvariantCulture, $" ({workers.Count + 1} processes summed)") : "";
            text.AppendLine(CultureInfo.InvariantCulture,
                $"server     {Cost(row.Server, moved, result)}, {SaturationRule.Share(blame.ServerCpuCores ?? 0, blame.ServerAllowedCpus ?? 1)} ({CountText.Format(blame.ServerAllowedCpus.GetValueOrDefault(), "core")}), RSS max {Mib(c.WorkingSetBytes)}, threads max {blame.ServerThreadsMax}{processes}");
            if (c.ThreadPoolThreads is not null)
            {
                text.AppendLine(CultureInfo.InvariantCulture,
                    $"runtime    gen0/1/2 {c.Gen0Collections}/{c.Gen1Collections}/{c.Gen2Collections}{GcPause(blame)}, alloc {c.AllocationBytesPerSecond / MiB:N1} MiB/s, thread pool {CountText.Format(c.ThreadPoolThreads.GetValueOrDefault(), "thread")} (queue max {c.ThreadPoolQueueLength}), contention {c.LockContentionsPerSecond:N1}/s, exceptions {c.ExceptionsPerSecond:N1}/s{Sampled(c, result)}");
            }
            else if (blame.RuntimeCounters is { } note)
            {
                text.AppendLine($"runtime    none: {note}");
            }
        }

        if (blame.Proxy is { } proxy)
        {
            var processes = proxy.WorkerProcessIds is { Count: > 0 } workers ? string.Create(CultureInfo.InvariantCulture, $" ({workers.Count + 1} processes summed)") : "";
            var cost = proxy.CpuSecondsPerGiB is { } perGiB ? string.Create(CultureInfo.InvariantCulture, $"CPU {perGiB:0.###} s/GiB") : Cost(null, moved, result);
            text.AppendLine(proxy.CpuCores is { } cores
                ? string.Create(CultureInfo.InvariantCulture,
                    $"proxy      {cost}, {SaturationRule.Share(cores, proxy.AllowedCpus ?? 1)} ({CountText.Format(proxy.AllowedCpus.GetValueOrDefault(), "core")}), RSS max {Mib(proxy.WorkingSetBytesMax)}, threads max {proxy.ThreadsMax}{processes}")
                : $"proxy      not measured: PID {proxy.ProcessId} could not be sampled");
        }

        text.AppendLine($"verdict    {blame.Reason}");
        await output.WriteAsync(text.ToString());
    }

    /// <summary>
    /// A run that completed no response: said, with what the responses cut at its end had received, so 1 GiB received
    /// in a 6 s run of 1 GiB files does not read "0.0 MiB/s, nothing moved".
    /// </summary>
    private static string NoneCompleted(LoadResult result) => result.CancelledAtEnd == 0 || result.CutBodyBytes == 0
        ? ""
        : string.Create(CultureInfo.InvariantCulture,
            $" completed within the {result.Elapsed.TotalSeconds:0.00} s run: the {CountText.Format(result.CancelledAtEnd, "response")} cut at its end had received {result.CutBodyBytes / MiB:N1} MiB of {(result.CancelledAtEnd == 1 ? "its body" : "their bodies")} (not verified: no rate is drawn from them)");

    /// <summary>
    /// What the responses cut at the run's end received, when it is worth saying: after no completed response, with advice
    /// to run long enough for one (from the longest Content-Length and the rate they received at); after some, when
    /// their bytes are a tenth or more of all received, as MiB/s (completed responses only) then understates the transfer.
    /// </summary>
    private static string? CutLine(LoadSettings settings, LoadResult result)
    {
        if (result.CancelledAtEnd == 0 || result.CutBodyBytes == 0)
        {
            return null;
        }

        if (result.Responses > 0)
        {
            return result.CutBodyBytes * 10 < result.BodyBytes + result.CutBodyBytes ? null : string.Create(CultureInfo.InvariantCulture,
                $"cut        {CountText.Format(result.CancelledAtEnd, "response")} in flight at the end had received {result.CutBodyBytes / MiB:N1} MiB, not in MiB/s (not verified): run longer (--duration) for a rate nearer the transfer's");
        }

        var options = settings.Engine;
        var requests = $"-n {options.Connections.ToString(CultureInfo.InvariantCulture)} (each response read whole, within --timeout {options.RequestTimeout.TotalSeconds.ToString("0.##", CultureInfo.InvariantCulture)} s)";
        if (result.CutDeclaredBytes <= 0 || result.Elapsed.TotalSeconds <= 0)
        {
            return $"advice     no response ended within the run: run a longer --duration, or {requests}";
        }

        // One response's transfer at the rate each cut one received: the run needs a few of them for a rate.
        var perResponse = (double)result.CutBodyBytes / result.CancelledAtEnd / result.Elapsed.TotalSeconds;
        var seconds = Math.Ceiling(result.CutDeclaredBytes / perResponse);
        var timeout = seconds * 2 > options.RequestTimeout.TotalSeconds
            ? $" with --timeout {(seconds * 2).ToString("0", CultureInfo.InvariantCulture)}"
            : "";
        return string.Create(CultureInfo.InvariantCulture,
            $"advice     a response of {result.CutDeclaredBytes / MiB:N1} MiB takes ~{seconds:0} s at the rate they received: run --duration {seconds * 3:0} or more (3 a connection), or {requests}{timeout}");
    }

    /// <summary>"runs       5: req/s 1,204 (1,150–1,260), MiB/s …": each figure's median over the runs and their range, as compare reads them.</summary>
    private static string Spread(ScenarioResult row)
    {
        static string Of(string name, Summary? summary, double scale, string format) => summary?.Samples is { Count: > 1 }
            ? string.Create(CultureInfo.InvariantCulture, $"{name} {(summary.Median / scale).ToString(format, CultureInfo.InvariantCulture)} ({(summary.Min / scale).ToString(format, CultureInfo.InvariantCulture)}–{(summary.Max / scale).ToString(format, CultureInfo.InvariantCulture)})")
            : "";

        var parts = new[]
        {
            Of("req/s", row.RequestsPerSecond, 1, "N1"),
            Of("MiB/s", row.BytesPerSecond, MiB, "N1"),
            Of("client CPU s/GiB", row.Client?.CpuSecondsPerGiBSamples is { } client ? Summary.OfRuns(client) : null, 1, "0.###"),
            Of("server CPU s/GiB", row.Server?.CpuSecondsPerGiBSamples is { } server ? Summary.OfRuns(server) : null, 1, "0.###"),
            Of("proxy CPU s/GiB", row.Blame?.Proxy?.CpuSecondsPerGiBSamples is { } proxy ? Summary.OfRuns(proxy) : null, 1, "0.###"),
        };
        return $"runs       {row.Runs}, median (min–max): {string.Join(", ", parts.Where(part => part.Length > 0))}";
    }

    /// <summary>
    /// Without --expect-status any status counts as answered, so a run of 401s or 404s "verifies": said, not failed, as
    /// a wrong URL or token is the likely cause and the exit code is the documented one.
    /// </summary>
    private static string? NoSuccess(LoadSettings settings, LoadResult result) =>
        settings.Engine.ExpectedStatusCode is null && result.Responses > 0 && !result.StatusCodes.Keys.Any(code => code is >= 200 and <= 299)
            ? $"warning    no response was 2xx ({StatusList(result)}): is the URL or token right? --expect-status makes this a failure"
            : null;

    /// <summary>status, digest, length, reset, timeout, error: the kinds with at least one.</summary>
    internal static Dictionary<string, long> FailuresByKind(LoadResult result)
    {
        var kinds = new Dictionary<string, long>
        {
            ["status"] = result.BadResponses - result.BodyMismatches - result.LengthMismatches,
            ["digest"] = result.BodyMismatches,
            ["length"] = result.LengthFailures + result.LengthMismatches,
            ["reset"] = result.SocketErrors,
            ["timeout"] = result.Timeouts,
            ["error"] = result.Errors,
        };
        foreach (var (kind, count) in kinds)
        {
            if (count == 0)
            {
                kinds.Remove(kind);
            }
        }

        return kinds;
    }

    private static string Describe(LoadResult result, Dictionary<string, long> failures)
    {
        var none = result.CancelledAtEnd > 0 && result.CutBodyBytes > 0
            ? string.Create(CultureInfo.InvariantCulture, $"no response completed ({result.CancelledAtEnd} cut at the end had received {result.CutBodyBytes / MiB:N1} MiB)")
            : "no response";
        return result.Responses == 0 && failures.Count == 0
            ? none
            : $"{string.Join(", ", failures.Select(f => $"{f.Value} {f.Key}"))}{(result.Responses == 0 ? ", " + none : "")}";
    }

    private static ScenarioParameters Parameters(LoadSettings settings)
    {
        var options = settings.Engine;
        var parameters = new ScenarioParameters
        {
            Url = options.Target.ToString(),
            Method = options.Method.Method,
            Scheme = options.Target.Scheme,
            Protocol = options.HttpVersion == System.Net.HttpVersion.Version20 ? "h2" : "http/1.1",
            Connections = options.Connections,
            Mode = options.Mode == LoadMode.OpenLoop ? "open-loop" : "closed-loop",
            Transport = options.UsesRawHttp11 ? "raw-http11" : "httpclient",
            BodySource = settings.BodySource,
            Verify = options.ExpectedSha256 is not null ? "sha-256" : options.ExpectedStatusCode is not null ? "status" : "digest-fields",
        };
        if (options.Body is { } body)
        {
            parameters.PayloadBytes = body.Length;
            parameters.Multipart = settings.Multipart;
        }

        if (options.RatePerSecond is { } rate)
        {
            parameters.Rate = rate;
        }

        if (options.Duration is { } duration)
        {
            parameters.DurationSeconds = duration.TotalSeconds;
        }

        if (options.MaxRequests is { } requests)
        {
            parameters.Requests = requests;
        }

        return parameters;
    }

    private sealed record ServerCpuUse(double Seconds, double Cores, int? AllowedCpus);

    /// <summary>
    /// Cores that processes besides the client, the server and the proxy used over the run: the machine's busy time between
    /// the snapshots around it, less the client's CPU and the server's and proxy's at their rates over the run; null without both snapshots.
    /// </summary>
    private static double? OthersCpu(LoadMeasurements measured, double clientCpuSeconds, ServerCpuUse? server, ServerCpuUse? proxy)
    {
        if (measured is not { MachineBefore: { } before, MachineAfter: { } after })
        {
            return null;
        }

        var wall = (after.Timestamp - before.Timestamp).TotalSeconds;
        return wall <= 0 ? null : Math.Max(0, (after.BusySeconds - before.BusySeconds - clientCpuSeconds) / wall - (server?.Cores ?? 0) - (proxy?.Cores ?? 0));
    }

    /// <summary>A group's workers in order (those found during the run among them); null for a process alone.</summary>
    private static List<int>? Workers(IReadOnlyList<int> workers) => workers.Count > 0 ? [.. workers.Order()] : null;

    /// <summary>A process's CPU seconds within each of several runs (<see cref="ServerCpuWithin"/>); null for one run, or fewer than two samples.</summary>
    private static List<double>? CpuWithinRuns(IReadOnlyList<ProcessStatSnapshot>? samples, IReadOnlyList<MeasuredRun> runs) =>
        samples is { Count: >= 2 } && runs.Count > 1
            ? [.. runs.Select(r => ServerCpuWithin(samples, r.StartedAt, r.StartedAt + r.Result.Elapsed))]
            : null;

    /// <summary>A process's CPU over the run, or over the runs summed (<paramref name="perRun"/>, the time between them left out); null without two samples.</summary>
    private static ServerCpuUse? CpuOverRuns(IReadOnlyList<ProcessStatSnapshot>? samples, List<double>? perRun, double seconds) =>
        samples is not { Count: >= 2 } ? null
            : perRun is null ? ServerCpu(samples)
            : new ServerCpuUse(perRun.Sum(), perRun.Sum() / seconds, samples[^1].AllowedCpus ?? Environment.ProcessorCount);

    private static ServerCpuUse ServerCpu(IReadOnlyList<ProcessStatSnapshot> samples)
    {
        var first = samples[0];
        var last = samples[^1];
        var wall = (last.Timestamp - first.Timestamp).TotalSeconds;
        var cpu = last.CpuSeconds - first.CpuSeconds;
        return new ServerCpuUse(cpu, wall > 0 ? cpu / wall : 0, last.AllowedCpus ?? Environment.ProcessorCount);
    }

    /// <summary>
    /// The share of the run the server's runtime was paused for GC: its "Time paused by GC" increments (ms) over the
    /// run's seconds. "% time in GC" is of the last collection alone, so it serves only when that counter is missing.
    /// </summary>
    private static double? TimeInGcPercent(List<RuntimeCounterValue> counters, double seconds)
    {
        var paused = counters.Where(v => v.Name == "total-pause-time-by-gc").ToList();
        if (paused.Count > 0)
        {
            return Math.Min(100, paused.Sum(v => v.Value) / 1000 / seconds * 100);
        }

        var lastGc = counters.Where(v => v.Name == "time-in-gc").ToList();
        return lastGc.Count > 0 ? lastGc.Average(v => v.Value) : null;
    }

    /// <summary>
    /// The server's CPU seconds from <paramref name="start"/> to <paramref name="end"/> (one of several runs), its CPU time
    /// interpolated between the once-a-second samples either side: the samples keep going between runs, and a sample a
    /// second after a run's end would count the next run's start.
    /// </summary>
    private static double ServerCpuWithin(IReadOnlyList<ProcessStatSnapshot> samples, DateTimeOffset start, DateTimeOffset end) =>
        Math.Max(0, CpuAt(samples, end) - CpuAt(samples, start));

    private static double CpuAt(IReadOnlyList<ProcessStatSnapshot> samples, DateTimeOffset at)
    {
        if (at <= samples[0].Timestamp)
        {
            return samples[0].CpuSeconds;
        }

        for (var i = 1; i < samples.Count; i++)
        {
            if (at <= samples[i].Timestamp)
            {
                var (before, after) = (samples[i - 1], samples[i]);
                var span = (after.Timestamp - before.Timestamp).TotalSeconds;
                var part = span > 0 ? (at - before.Timestamp).TotalSeconds / span : 1;
                return before.CpuSeconds + (part * (after.CpuSeconds - before.CpuSeconds));
            }
        }

        return samples[^1].CpuSeconds;
    }

    /// <summary>
    /// The runs' counter values: those stamped after the start, up to the poll that closes the end (the first stamped at
    /// or after it, every counter of it). A value covers the interval before its stamp and the incrementing ones (GCs,
    /// allocated bytes) count since the poll before, from the session's start on (before the first run): their sum is
    /// the cumulative count at the closing poll minus the count at the last poll before the start, all of the runs.
    /// Without a closing poll (the server stopped sending, a Ctrl+C) the values cover the runs up to the last one.
    /// </summary>
    private static RuntimeWindow Within(IReadOnlyList<RuntimeCounterValue> values, DateTimeOffset start, DateTimeOffset end)
    {
        var closing = values.Where(v => v.Timestamp >= end).Select(v => (DateTimeOffset?)v.Timestamp).Min();

        // The counters of one poll are stamped together (microseconds apart), polls a second apart.
        var last = closing?.AddSeconds(RuntimeCounterWatch.IntervalSeconds / 2.0) ?? end;
        var inside = values.Where(v => v.Timestamp > start && v.Timestamp <= last).ToList();
        var through = closing is null ? inside.Select(v => (DateTimeOffset?)v.Timestamp).Max() ?? start : end;
        return new RuntimeWindow(inside, Math.Max(0, (through - start).TotalSeconds), closing is not null);
    }

    /// <summary>The counter values within the runs, the seconds of the runs they cover, and whether that is all of them.</summary>
    private sealed record RuntimeWindow(List<RuntimeCounterValue> Values, double SampledSeconds, bool Whole);

    private static ServerCounters Counters(ServerCpuUse cpu, IReadOnlyList<ProcessStatSnapshot> samples, RuntimeWindow? window, double seconds)
    {
        double? perSecondMax = null;
        for (var i = 1; i < samples.Count; i++)
        {
            var wall = (samples[i].Timestamp - samples[i - 1].Timestamp).TotalSeconds;
            if (wall > 0.5)
            {
                perSecondMax = Math.Max(perSecondMax ?? 0, 100 * (samples[i].CpuSeconds - samples[i - 1].CpuSeconds) / wall);
            }
        }

        var result = new ServerCounters
        {
            CpuPercent = 100 * cpu.Cores,
            CpuPercentMax = perSecondMax,
            WorkingSetBytes = MaxRss(samples),
        };
        if (window is not { Values: { Count: > 0 } counters })
        {
            return result;
        }

        // Rates are the counts over the seconds they cover: the runs' own, or the part sampled when the last polls never came.
        var covered = window.Whole ? seconds : window.SampledSeconds;
        double? Rate(string name) => covered > 0 ? Sum(name) / covered : null;

        double? Sum(string name) => counters.Any(v => v.Name == name) ? counters.Where(v => v.Name == name).Sum(v => v.Value) : null;
        double? Max(string name) => counters.Any(v => v.Name == name) ? counters.Where(v => v.Name == name).Max(v => v.Value) : null;
        return result with
        {
            // System.Runtime reports gc-heap-size in MB (10^6 bytes), the generation sizes in bytes, the rest as counts per interval.
            GcHeapBytes = (long?)(Max("gc-heap-size") * 1e6),
            Gen0Collections = (int?)Sum("gen-0-gc-count"),
            Gen1Collections = (int?)Sum("gen-1-gc-count"),
            Gen2Collections = (int?)Sum("gen-2-gc-count"),
            Gen0SizeBytes = (long?)Max("gen-0-size"),
            Gen1SizeBytes = (long?)Max("gen-1-size"),
            Gen2SizeBytes = (long?)Max("gen-2-size"),
            LohSizeBytes = (long?)Max("loh-size"),
            AllocatedBytes = (long?)Sum("alloc-rate"),
            AllocationBytesPerSecond = Rate("alloc-rate"),
            RuntimeSampledSeconds = window.Whole ? null : window.SampledSeconds,
            ThreadPoolThreads = (int?)Max("threadpool-thread-count"),
            ThreadPoolQueueLength = (long?)Max("threadpool-queue-length"),
            WorkItemsPerSecond = Rate("threadpool-completed-items-count"),
            LockContentionsPerSecond = Rate("monitor-lock-contention-count"),
            ExceptionsPerSecond = Rate("exception-count"),
        };
    }

    /// <summary>
    /// The server's seconds as the samples <see cref="SeriesMerger"/> merges: CPU % over the second before each
    /// /proc snapshot, its threads and RSS, and the thread pool's threads and queue from the counter stamped nearest.
    /// </summary>
    private static List<RuntimeSample> PerSecond(IReadOnlyList<ProcessStatSnapshot> samples, List<RuntimeCounterValue> counters)
    {
        var points = new List<RuntimeSample>();
        for (var i = 1; i < samples.Count; i++)
        {
            var (before, after) = (samples[i - 1], samples[i]);
            var wall = (after.Timestamp - before.Timestamp).TotalSeconds;
            if (wall <= 0)
            {
                continue;
            }

            var threads = Nearest(counters, "threadpool-thread-count", after.Timestamp);
            var queue = Nearest(counters, "threadpool-queue-length", after.Timestamp);

            // The snapshot closes the second before it: stamp the point inside that second.
            points.Add(new RuntimeSample(i, after.Timestamp.AddMilliseconds(-1), 0, after.CpuSeconds, 100 * (after.CpuSeconds - before.CpuSeconds) / wall,
                (int)(threads ?? -1), (long)(queue ?? -1), -1, after.Threads ?? -1, after.WorkingSetBytes, -1, -1, -1, -1, -1, -1, -1));
        }

        return points;
    }

    private static double? Nearest(List<RuntimeCounterValue> counters, string name, DateTimeOffset at)
    {
        double? value = null;
        var best = TimeSpan.FromSeconds(1);
        foreach (var counter in counters)
        {
            var distance = (counter.Timestamp - at).Duration();
            if (counter.Name == name && distance < best)
            {
                best = distance;
                value = counter.Value;
            }
        }

        return value;
    }

    private static long? MaxRss(IReadOnlyList<ProcessStatSnapshot> samples) => samples.Count == 0 ? null : samples.Max(s => s.WorkingSetBytes);

    /// <summary>"CPU 0.28 s/GiB", or why there is no such figure: nothing moved, or fewer bytes than <see cref="MinimumCostBytes"/>.</summary>
    private static string Cost(SideCost? cost, double moved, LoadResult result) => cost?.CpuSecondsPerGiB is { } perGiB
        ? string.Create(CultureInfo.InvariantCulture, $"CPU {perGiB:0.###} s/GiB")
        : moved < 1
            ? result.Responses == 0 && result.CutBodyBytes > 0 ? "CPU – a GiB (no response completed)" : "CPU – a GiB (nothing moved)"
            : $"CPU – a GiB ({TransferUnits.Bytes((long)Math.Round(moved))} moved; it needs {MinimumCostBytes >> 20} MiB)";

    /// <summary>" (3 of 5 s sampled)" when the runtime counters cover only part of the runs, else nothing.</summary>
    private static string Sampled(ServerCounters counters, LoadResult result) => counters.RuntimeSampledSeconds is { } sampled
        ? string.Create(CultureInfo.InvariantCulture, $" ({sampled:0.#} of {result.Elapsed.TotalSeconds:0.#} s sampled)")
        : "";

    /// <summary>", GC paused it 58 % of the run" for a .NET server, else nothing.</summary>
    private static string GcPause(LoadBlame blame) =>
        blame.GcTimePercent is { } paused ? string.Create(CultureInfo.InvariantCulture, $", GC paused it {paused:0} % of the run") : "";

    private static string StatusList(LoadResult result) =>
        string.Join(", ", result.StatusCodes.OrderBy(c => c.Key).Select(c => string.Create(CultureInfo.InvariantCulture, $"{c.Key}×{c.Value:N0}")));

    private static string Mib(long? bytes) => bytes is { } b ? string.Create(CultureInfo.InvariantCulture, $"{b / MiB:N1} MiB") : "–";
}
