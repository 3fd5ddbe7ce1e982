using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Freight.Bench.Cli;
using Freight.Bench.Load;
using Freight.Bench.Measure;
using Freight.Bench.Peers;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Results;
using Freight.Bench.Suites.Files;
using Freight.Bench.Suites.Json;
using Freight.Bench.Suites.Micro;
using Freight.Bench.Suites.Static;
using Freight.Bench.Suites.Threads;
using Freight.Bench.Suites.Transfer;
using Freight.Bench.Suites.Tus;

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
    private readonly IBenchProgress _progress = progress ?? new PlainProgress(output);

    /// <summary>The ids of the scenarios the suites of <paramref name="options"/> hold before --filter: what a filter must match one of.</summary>
    public static IEnumerable<string> ScenarioIds(BenchOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var suites = options.Suites;
        var ids = new List<string>();
        if (suites.Contains(TransferSuite.Name))
        {
            ids.AddRange(TransferSuite.Create(options.Full).Select(s => s.Id));
        }

        if (suites.Contains(JsonSuite.Name))
        {
            ids.AddRange(JsonSuite.Create(options.JsonRecords, options.Full).Select(s => s.Id));
        }

        if (suites.Contains(ThreadsSuite.Name))
        {
            ids.AddRange(ThreadsSuite.Create(options.ThreadsRampTo, options.ThreadsRampSeconds, options.Full).Select(s => s.Id));
            ids.Add(ThreadsSuiteRunner.EngineCheckId);
        }

        if (suites.Contains(StaticSuite.Name))
        {
            ids.AddRange(StaticSuite.Create(options.Quick, options.Full).Select(s => s.Id));
        }

        if (suites.Contains(FilesSuite.Name))
        {
            ids.AddRange(FilesSuite.Create(options.Quick, options.Store, options.Full).Select(s => s.Id));
        }

        if (suites.Contains(TusSuite.Name))
        {
            ids.AddRange(TusSuite.Create(options.Quick, TusSuite.Sizes(options.Quick)).Select(s => s.Id));
        }

        return ids;
    }

    public async Task<int> RunAsync(CancellationToken cancellationToken)
    {
        var startedAt = DateTimeOffset.UtcNow;
        var work = Directory.CreateTempSubdirectory("freight-bench-");
        try
        {
            var candidates = TransferSuiteRunner.Select(options);
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
                Settings = new BenchSettings(options.Suites, options.Quick, options.Runs, options.RunSeconds, options.WarmupSeconds, options.PayloadBytes, options.CpuAffinity && options.Target is null, options.Target?.ToString() ?? "embedded", options.Store, rgw is null ? null : $"Ceph RGW {rgw.Version} (memstore)", options.Full, options.Filter),
            };

            _progress.Line($"freight bench: suites {string.Join(", ", options.Suites)}, target {report.Settings.Target}");
            var transfer = await new TransferSuiteRunner(options, _progress).RunAsync(scenarios, servers, probe, cancellationToken);
            report.Results.AddRange(transfer.Results);
            report.Ratios.AddRange(transfer.Ratios);
            if (transfer.Check is not null)
            {
                report.SuiteChecks.Add(transfer.Check);
            }

            var failures = transfer.Failures;
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
                var staticSuite = new StaticSuiteRunner(options, _progress, servers[TransferScenario.FreightServer], clients.Client, work.FullName, PinIfAsked);
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
            try
            {
                Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(jsonPath))!);
                await ResultFile.WriteAsync(jsonPath, json => JsonSerializer.SerializeAsync(json, report, BenchReport.JsonOptions));
            }
            catch (Exception failed) when (failed is IOException or UnauthorizedAccessException)
            {
                // Checked writable at the start (--json), so rare: the tables above stay the run's figures.
                await output.WriteLineAsync($"bench: the result could not be written to {jsonPath}: {failed.Message}");
                return 1;
            }

            await output.WriteLineAsync($"result: {jsonPath}");
            try
            {
                foreach (var csv in await SeriesCsv.WriteAsync(report, jsonPath))
                {
                    await output.WriteLineAsync($"time series: {csv}");
                }
            }
            catch (Exception failed) when (failed is IOException or UnauthorizedAccessException)
            {
                // The series are in the result just written too: say so and go on to the report.
                await output.WriteLineAsync($"bench: the time series could not be written beside {jsonPath} (they are in it): {failed.Message}");
            }

            if (!options.NoReport)
            {
                await WriteHtmlReportAsync(report, jsonPath, cancellationToken);
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

    /// <summary>
    /// The HTML report beside the result JSON, rendered from the report in memory (the page <c>freight report</c> makes of
    /// that file); a report that cannot be written is said, not fatal: the JSON is the result.
    /// </summary>
    private async Task WriteHtmlReportAsync(BenchReport report, string jsonPath, CancellationToken cancellationToken)
    {
        try
        {
            var html = await HtmlReport.WriteAsync(report, Path.GetFileName(jsonPath), Path.ChangeExtension(jsonPath, ".html"), cancellationToken);
            await output.WriteLineAsync($"report: {html}");
        }
        catch (Exception failure) when (failure is IOException or UnauthorizedAccessException)
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
}
