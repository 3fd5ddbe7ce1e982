using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Freight.Bench.Load;
using Freight.Bench.Measure;
using Freight.Bench.Micro;
using Freight.Bench.Peers;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Scenarios;
using Freight.Bench.Tus;

namespace Freight.Bench;

/// <summary>
/// Runs the suites: starts the embedded server (or uses --target), warms every scenario up, then runs
/// each scenario N times interleaved (run 1 of every scenario, then run 2, …) so drift on a shared
/// machine spreads over all rows alike. A transfer that does not verify fails its scenario: it yields
/// no number and the bench exits non-zero. While it runs, <paramref name="progress"/> shows where it is
/// (plain lines on <paramref name="output"/> by default); at the end the tables go to <paramref name="output"/>,
/// then the result JSON and, unless --no-report, the HTML report beside it.
/// </summary>
public sealed class BenchRunner(BenchOptions options, TextWriter output, IBenchProgress? progress = null)
{
    private const double GiB = 1024d * 1024 * 1024;

    private readonly IBenchProgress _progress = progress ?? new PlainProgress(output);

    public async Task<int> RunAsync(CancellationToken cancellationToken)
    {
        var startedAt = DateTimeOffset.UtcNow;
        var work = Directory.CreateTempSubdirectory("freight-bench-");
        try
        {
            var candidates = SelectScenarios();
            var runJson = options.Suites.Contains(JsonSuite.Name);
            var runStatic = options.Suites.Contains(StaticSuite.Name);
            var runFiles = options.Suites.Contains(FilesSuite.Name);
            var runTus = options.Suites.Contains(TusSuite.Name);
            // --store s3: the embedded server keeps its files in an RGW started first and stopped last (disposed after
            // the servers, on Ctrl+C and failures too). Without one the files suite's rows fail with why.
            var (rgw, rgwUnavailable) = options.Store == FilesSuite.S3Store ? await StartRgwAsync(cancellationToken) : (null, null);
            await using var rgwLifetime = rgw;
            await using var processes = new FreightProcessSet();
            var targets = new Dictionary<string, BenchTarget>();
            var counters = new Dictionary<string, InstructionCounter>();
            if (options.Target is null)
            {
                var needed = candidates.Where(s => s.Direction != TransferDirection.Probe && s.Server != TransferScenario.NginxTlsServer).Select(s => s.Server);
                foreach (var name in (runJson || runStatic || runFiles || runTus ? needed.Prepend(TransferScenario.FreightServer) : needed).Distinct())
                {
                    var server = await StartServerAsync(name, work.FullName, rgw, cancellationToken);
                    processes.Add(server);
                    targets[name] = new BenchTarget(server.Http, server.Https, server.CertificateSha256, server.H2c);
                    counters[name] = await InstructionCounter.ProbeAsync(server.ProcessId, cancellationToken);
                }
            }
            else
            {
                targets[TransferScenario.FreightServer] = new BenchTarget(options.Target.Scheme == "http" ? options.Target : null, options.Target.Scheme == "https" ? options.Target : null, options.CertificateSha256);
            }

            using var payload = ClientPayload.Create(candidates.Count > 0 ? options.PayloadBytes : 0, work.FullName);
            // peer/nginx-tls: nginx serving the payload file over TLS on a certificate the bench wrote for it (pinned).
            await using var nginxTls = options.Target is null && candidates.Any(s => s.Server == TransferScenario.NginxTlsServer)
                ? await NginxTlsPeer.StartAsync(payload, work.FullName, cancellationToken)
                : null;
            if (nginxTls is not null)
            {
                PinIfAsked(nginxTls.Server.ProcessId);
                targets[TransferScenario.NginxTlsServer] = new BenchTarget(null, nginxTls.Server.BaseAddress, nginxTls.CertificateSha256);
            }

            using var clients = new HttpClients(targets.Values.Select(t => t.CertificateSha256).OfType<string>().ToList());
            var servers = targets.ToDictionary(
                pair => pair.Key,
                pair => pair.Key == TransferScenario.NginxTlsServer
                    ? new ServerUnderTest(pair.Key, pair.Value, new ServerMetrics(nginxTls!.Server.ProcessId), new TransferClient(clients, pair.Value, payload, nginxTls))
                    : new ServerUnderTest(pair.Key, pair.Value, new ServerMetrics(clients.Client, pair.Value.Http ?? pair.Value.Https!), new TransferClient(clients, pair.Value, payload), counters.GetValueOrDefault(pair.Key)));
            var probeScenario = candidates.FirstOrDefault(s => s.Direction == TransferDirection.Probe);
            await using var probe = probeScenario is null ? null : await StartProbeAsync(processes, payload, probeScenario, cancellationToken);

            // A --target is one server: rows that need another server, or a scheme it lacks, are left out.
            var scenarios = candidates
                .Where(s => s.Direction == TransferDirection.Probe || (servers.TryGetValue(s.Server, out var server) && server.Target.Supports(s.Scheme)))
                .ToList();
            var report = new BenchReport
            {
                StartedAt = startedAt,
                Machine = MachineInfo.Current(),
                Measures = MeasuresOffered.Of(counters.GetValueOrDefault(TransferScenario.FreightServer) ?? await InstructionCounter.ProbeAsync(null, cancellationToken)),
                Settings = new BenchSettings(options.Suites, options.Quick, options.Runs, options.RunSeconds, options.WarmupSeconds, options.PayloadBytes, options.CpuAffinity && options.Target is null, options.Target?.ToString() ?? "embedded", options.Store, rgw is null ? null : $"Ceph RGW {rgw.Version} (memstore)", options.Full),
            };

            _progress.Line($"freight bench: suites {string.Join(", ", options.Suites)}, target {report.Settings.Target}");
            if (scenarios.Count > 0)
            {
                _progress.SuiteStarted(
                    TransferSuite.Name,
                    $"transfer suite: {scenarios.Count} scenarios × {options.Runs} runs of ≥{options.RunSeconds:0.##} s, payload {options.PayloadBytes / 1048576.0:0.##} MiB",
                    InterleavedRuns.PlannedSeconds(scenarios.Count, options));
            }

            var live = _progress.Live;
            var measured = await InterleavedRuns.RunAsync(
                scenarios,
                options,
                _progress,
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
            foreach (var scenario in scenarios)
            {
                var row = Summarize(scenario, options.PayloadBytes, samples[scenario], failures.GetValueOrDefault(scenario), ceiling);
                report.Results.Add(row);
                _progress.RowFinished(row);
            }

            if (scenarios.Count > 0)
            {
                var ratios = TransferRatios.Compute(scenarios, report.Results).Select(r => r.WithStop(measured.Stop, measured.RunsAdded)).ToList();
                report.Ratios.AddRange(ratios);
                report.SuiteChecks.Add(SuiteCheck.Of(TransferSuite.Name, ratios, measured.Stop, measured.Passes, options.MaxSeconds));
                _progress.SuiteFinished();
            }

            var jsonVerified = true;
            if (runJson)
            {
                var json = new JsonSuiteRunner(options, _progress, servers[TransferScenario.FreightServer], new JsonResponseClient(clients, servers[TransferScenario.FreightServer].Target));
                var (jsonResults, jsonRatios, verified, jsonCheck) = await json.RunAsync(cancellationToken);
                report.Results.AddRange(jsonResults);
                report.Ratios.AddRange(jsonRatios);
                if (jsonCheck is not null)
                {
                    report.SuiteChecks.Add(jsonCheck);
                }

                jsonVerified = verified;
            }

            var threadsVerified = true;
            if (options.Suites.Contains(ThreadsSuite.Name) && options.Target is null)
            {
                var threads = new ThreadsSuiteRunner(options, _progress, work.FullName, PinIfAsked);
                var (threadResults, threadRatios, verified) = await threads.RunAsync(cancellationToken);
                report.Results.AddRange(threadResults);
                report.Ratios.AddRange(threadRatios);
                threadsVerified = verified;
            }

            var staticVerified = true;
            if (runStatic)
            {
                var staticSuite = new StaticSuiteRunner(options, _progress, servers[TransferScenario.FreightServer], work.FullName, PinIfAsked);
                var (staticResults, staticRatios, verified, staticCheck) = await staticSuite.RunAsync(cancellationToken);
                report.Results.AddRange(staticResults);
                report.Ratios.AddRange(staticRatios);
                if (staticCheck is not null)
                {
                    report.SuiteChecks.Add(staticCheck);
                }

                staticVerified = verified;
            }

            var filesVerified = true;
            if (runFiles)
            {
                var files = new FilesSuiteRunner(options, _progress, servers[TransferScenario.FreightServer], clients.Client, work.FullName, PinIfAsked, rgw, rgwUnavailable);
                var (fileResults, fileRatios, verified, filesCheck) = await files.RunAsync(cancellationToken);
                report.Results.AddRange(fileResults);
                report.Ratios.AddRange(fileRatios);
                if (filesCheck is not null)
                {
                    report.SuiteChecks.Add(filesCheck);
                }

                filesVerified = verified;
            }

            var tusVerified = true;
            if (runTus)
            {
                var tus = new TusSuiteRunner(options, _progress, servers[TransferScenario.FreightServer], clients.Client, work.FullName, PinIfAsked);
                var (tusResults, tusRatios, verified, tusCheck) = await tus.RunAsync(cancellationToken);
                report.Results.AddRange(tusResults);
                report.Ratios.AddRange(tusRatios);
                if (tusCheck is not null)
                {
                    report.SuiteChecks.Add(tusCheck);
                }

                tusVerified = verified;
            }

            var jsonPath = options.JsonPath ?? Path.Combine("freight-results", $"bench-{startedAt:yyyyMMdd-HHmmss}.json");
            var microVerified = true;
            if (options.Suites.Contains(MicroSuite.Name))
            {
                // BenchmarkDotNet's own reports go beside the result JSON: bench-<time>-micro/.
                var artifacts = Path.Combine(Path.GetDirectoryName(Path.GetFullPath(jsonPath))!, Path.GetFileNameWithoutExtension(jsonPath) + "-micro");
                var micro = new MicroSuiteRunner(options, _progress, artifacts);
                var (microResults, microRatios, verified) = await micro.RunAsync(cancellationToken);
                report.Results.AddRange(microResults);
                report.Ratios.AddRange(microRatios);
                microVerified = verified;
            }

            report.Verified = failures.Count == 0 && jsonVerified && threadsVerified && staticVerified && filesVerified && tusVerified && microVerified;

            // A ratio of two rows this run did not measure (the default run's rows are a subset) says nothing; a goal
            // stays, "not measured", so a goal row that failed is seen.
            report.Ratios.RemoveAll(r => r.Value is null && r.Goal is null);

            // The live display ends before the final tables, which go below the rows it left.
            _progress.Complete();
            await ConsoleReport.WriteAsync(report, output);
            Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(jsonPath))!);
            await using (var json = File.Create(jsonPath))
            {
                await JsonSerializer.SerializeAsync(json, report, BenchReport.JsonOptions, cancellationToken);
            }

            await output.WriteLineAsync($"result: {jsonPath}");
            foreach (var csv in SeriesCsv.Write(report, jsonPath))
            {
                await output.WriteLineAsync($"time series: {csv}");
            }

            if (!options.NoReport)
            {
                await WriteHtmlReportAsync(jsonPath, cancellationToken);
            }

            foreach (var (scenario, reason) in failures)
            {
                await output.WriteLineAsync(ProgressText.Sanitize($"NOT VERIFIED {scenario.RowId} ({scenario.Describe()}): {reason}"));
            }

            return report.Verified ? 0 : 1;
        }
        finally
        {
            // On a failure or Ctrl+C too: the terminal gets its line and cursor back before anything else is printed.
            _progress.Complete();
            work.Delete(recursive: true);
        }
    }

    /// <summary>The HTML report beside the result JSON; a report that cannot be written is said, not fatal: the JSON is the result.</summary>
    private async Task WriteHtmlReportAsync(string jsonPath, CancellationToken cancellationToken)
    {
        try
        {
            var html = await HtmlReport.WriteAsync(jsonPath, cancellationToken: cancellationToken);
            await output.WriteLineAsync($"report: {html}");
        }
        catch (Exception failure) when (failure is InvalidDataException or IOException or UnauthorizedAccessException)
        {
            await output.WriteLineAsync(ProgressText.Sanitize($"report: not written: {failure.Message}"));
        }
    }

    private async Task<FreightProcess> StartServerAsync(string name, string work, RgwServer? rgw, CancellationToken cancellationToken)
    {
        string[] arguments = name == TransferScenario.StockPoolServer ? ["--Freight:TransportBlockBytes", "0"] : [];
        if (name == TransferScenario.FreightServer && rgw is not null)
        {
            await rgw.CreateBucketAsync(FilesSuiteRunner.StoreBucket, cancellationToken);
            arguments = [.. arguments, .. rgw.FreightStoreArguments(FilesSuiteRunner.StoreBucket)];
            try
            {
                var s3Server = await FreightProcess.StartServerAsync(Path.Combine(work, name + "-data"), arguments, options.TempDirectory, cancellationToken);
                PinIfAsked(s3Server);
                return s3Server;
            }
            catch (InvalidOperationException failure)
            {
                throw new InvalidOperationException($"freight serve did not start on the S3 store (--Freight:Files:Store S3, RGW at {rgw.Endpoint}): {failure.Message}", failure);
            }
        }

        var server = await FreightProcess.StartServerAsync(Path.Combine(work, name + "-data"), arguments, options.TempDirectory, cancellationToken);
        PinIfAsked(server);
        return server;
    }

    /// <summary>--store s3's RGW (<see cref="Rgw.StartAsync"/>), its daemons pinned with the servers under --cpu-affinity; or why there is none.</summary>
    private async Task<(RgwServer? Server, string? Unavailable)> StartRgwAsync(CancellationToken cancellationToken)
    {
        _progress.Line("freight bench: starting RGW for --store s3 (scripts/rgw.sh)");
        var (rgw, unavailable) = await Rgw.StartAsync(cancellationToken);
        if (rgw is null)
        {
            _progress.Line(ProgressText.Sanitize($"freight bench: RGW not available: {unavailable}"));
            return (null, unavailable);
        }

        if (options.CpuAffinity && Environment.ProcessorCount >= 2 && OperatingSystem.IsLinux())
        {
            if (await rgw.PinAsync("0", cancellationToken) is { } notPinned)
            {
                _progress.Line(ProgressText.Sanitize($"freight bench: RGW not pinned to CPU 0: {notPinned}"));
            }

            Process.GetCurrentProcess().ProcessorAffinity = 2;
        }

        return (rgw, null);
    }

    private async Task<TcpLoopbackProbe> StartProbeAsync(FreightProcessSet processes, ClientPayload payload, TransferScenario probe, CancellationToken cancellationToken)
    {
        var sink = await FreightProcess.StartTcpSinkAsync(cancellationToken);
        processes.Add(sink);
        PinIfAsked(sink);
        return await TcpLoopbackProbe.ConnectAsync(new IPEndPoint(IPAddress.Loopback, sink.Listening[0].Port), payload, probe.ClientBufferBytes, cancellationToken);
    }

    /// <summary>--cpu-affinity: child processes on CPU 0, the bench on CPU 1.</summary>
    private void PinIfAsked(FreightProcess child)
    {
        if (options.CpuAffinity && Environment.ProcessorCount >= 2 && OperatingSystem.IsLinux())
        {
            child.SetAffinity(1);
            Process.GetCurrentProcess().ProcessorAffinity = 2;
        }
    }

    /// <summary>--cpu-affinity for a peer process (nginx): CPU 0, like the embedded servers.</summary>
    private void PinIfAsked(int processId)
    {
        if (options.CpuAffinity && Environment.ProcessorCount >= 2 && OperatingSystem.IsLinux())
        {
            using var peer = Process.GetProcessById(processId);
            peer.ProcessorAffinity = 1;
            Process.GetCurrentProcess().ProcessorAffinity = 2;
        }
    }

    private List<TransferScenario> SelectScenarios()
    {
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

    private static ScenarioResult Summarize(TransferScenario scenario, long payloadBytes, List<RunSample> samples, string? failure, double? ceiling)
    {
        var result = new ScenarioResult
        {
            Scenario = scenario.RowId,
            Parameters = Parameters(scenario, payloadBytes),
            Published = scenario.Published,
            Verified = failure is null,
            Error = failure,
        };

        // A figure from a run whose bytes did not verify is not reported.
        if (result.FailsWithoutFigures(samples.Count))
        {
            return result;
        }

        var bytes = samples.Sum(s => s.Bytes);
        result.Runs = samples.Count;
        result.Transfers = samples.Sum(s => s.Transfers);
        result.BytesPerSecond = Summary.OfRuns(samples.Select(s => s.BytesPerSecond).ToList());
        result.TimeToFirstByteSeconds = Summary.Of(samples.Where(s => s.MedianTimeToFirstByteSeconds.HasValue).Select(s => s.MedianTimeToFirstByteSeconds!.Value).ToList());
        result.EfficiencyVsTcp = ceiling is > 0 && scenario.Direction != TransferDirection.Probe ? result.BytesPerSecond!.Median / ceiling : null;
        result.Client = new SideCost(samples.Sum(s => s.ClientCpuSeconds) / (bytes / GiB), AllocatedBytesPerTransfer: samples.Sum(s => (double)s.ClientAllocatedBytes) / result.Transfers)
        {
            CpuSecondsPerGiBSamples = [.. samples.Select(s => s.ClientCpuSecondsPerGiB)],
        };
        if (scenario.Direction != TransferDirection.Probe && samples.All(s => s.ServerBefore is not null && s.ServerAfter is not null))
        {
            var instructions = RunSample.ServerInstructionsPerByteOf(samples);
            result.Server = new SideCost(
                samples.Sum(s => s.ServerAfter!.CpuSeconds - s.ServerBefore!.CpuSeconds) / (bytes / GiB),
                AllocatedBytesPerTransfer: samples.Sum(s => (double)(s.ServerAfter!.AllocatedBytes - s.ServerBefore!.AllocatedBytes)) / result.Transfers,
                Gen0: samples.Sum(s => s.ServerAfter!.Gen0Collections - s.ServerBefore!.Gen0Collections),
                Gen1: samples.Sum(s => s.ServerAfter!.Gen1Collections - s.ServerBefore!.Gen1Collections),
                Gen2: samples.Sum(s => s.ServerAfter!.Gen2Collections - s.ServerBefore!.Gen2Collections),
                ThreadPoolThreadsMax: samples.Max(s => s.ServerAfter!.ThreadPoolThreads),
                DiskBytesWritten: samples.All(s => s.ServerAfter!.DiskWriteBytes >= 0) ? samples.Sum(s => s.ServerAfter!.DiskWriteBytes - s.ServerBefore!.DiskWriteBytes) : null,
                WorkingSetBytesMax: samples.Max(s => s.ServerAfter!.WorkingSetBytes))
            {
                CpuSecondsPerGiBSamples = [.. samples.Select(s => s.ServerCpuSecondsPerGiB!.Value)],
                InstructionsPerByte = instructions.Total,
                InstructionsPerByteSamples = instructions.PerRun,
            };
        }

        return result;
    }

    private static Dictionary<string, object> Parameters(TransferScenario scenario, long payloadBytes)
    {
        var parameters = new Dictionary<string, object>
        {
            ["label"] = scenario.Describe(),
            ["payloadBytes"] = payloadBytes,
            ["clientBufferBytes"] = scenario.ClientBufferBytes,
        };
        if (scenario.Direction != TransferDirection.Probe)
        {
            parameters["scheme"] = scenario.Scheme;
            parameters["protocol"] = scenario.Protocol;
            parameters["direction"] = scenario.Direction == TransferDirection.Upload ? "upload" : "download";
            parameters["server"] = scenario.Server;
        }

        if (scenario.Direction == TransferDirection.Upload)
        {
            parameters["source"] = scenario.Source;
            parameters["contentLength"] = scenario.ChunkedBody ? "chunked" : "known";
            parameters["sink"] = scenario.Sink;
        }

        return parameters;
    }
}
