using System.Diagnostics;
using System.Globalization;
using Freight.Bench.Cli;
using Freight.Bench.Load.Blame;
using Freight.Bench.Load.Engine;
using Freight.Bench.Measure;
using Freight.Bench.Reports;
using Freight.Bench.Reports.Output;
using Freight.Bench.Results;

namespace Freight.Bench.Load.Command;

/// <summary>
/// One <c>freight load</c>: samples this process and the server (when named) once a second, streams the
/// server's runtime counters when it is .NET, runs the load engine (<c>--runs</c> times, one after another) with a
/// live progress line, then prints the result and writes the files asked for. Exit code 0 when every response was what was expected, 1 otherwise.
/// </summary>
public static class LoadSession
{
    public static async Task<int> RunAsync(LoadSettings settings, TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);

        foreach (var note in new[] { settings.ServerNote, settings.ProxyNote })
        {
            if (note is not null)
            {
                await output.WriteLineAsync(note);
            }
        }

        string? countersNote = null;
        await using var counters = settings.ServerProcessId is { } pid ? RuntimeCounterWatch.TryStart(pid, out countersNote) : null;
        var client = new ProcessWatch(Environment.ProcessId);
        var server = settings.ServerProcessId is { } serverPid ? new ProcessWatch(serverPid, settings.ServerWorkers, settings.ServerWorkerSearch) : null;
        var proxy = settings.ProxyProcessId is { } proxyPid ? new ProcessWatch(proxyPid, settings.ProxyWorkers, settings.ProxyWorkerSearch) : null;
        using var stopWatches = new CancellationTokenSource();
        var watching = Task.WhenAll(client.RunAsync(stopWatches.Token), server?.RunAsync(stopWatches.Token) ?? Task.CompletedTask,
            proxy?.RunAsync(stopWatches.Token) ?? Task.CompletedTask);

        // Runs one after another, each on fresh connections (the engine opens its own); a Ctrl+C keeps the runs that
        // completed, and the interrupted one only when it is the first (one run is kept as it always was).
        var machineBefore = MachineCpuSnapshot.Capture();
        var runs = new List<MeasuredRun>();
        for (var run = 1; run <= settings.Runs; run++)
        {
            var measured = await RunOnceAsync(settings, run, error, cancellationToken);
            if (measured.Result.StopReason == LoadStopReason.Cancelled && runs.Count > 0)
            {
                break;
            }

            runs.Add(measured);
            if (cancellationToken.IsCancellationRequested)
            {
                break;
            }
        }

        var machineAfter = MachineCpuSnapshot.Capture();
        await stopWatches.CancelAsync();
        await watching;

        // The runtime counters up to the poll that closes the last run (up to 1.5 s more): their run's figures are end minus start.
        var runtimeCounters = counters is null ? null : await counters.StopAfterAsync(runs[^1].StartedAt + runs[^1].Result.Elapsed, cancellationToken);

        // Workers found by their connections were not known at the start: said now, as the start's line says the others.
        foreach (var (role, watch, search) in new[] { ("server", server, settings.ServerWorkerSearch), ("proxy", proxy, settings.ProxyWorkerSearch) })
        {
            if (watch is { FoundWorkers.Count: > 0 } && search is not null)
            {
                await output.WriteLineAsync(ServerListener.FoundDuringRun(role, watch.ProcessId, watch.FoundWorkers, search.Ports));
            }
        }

        var report = LoadReport.Build(settings, new LoadMeasurements(runs, client.Samples, server?.Samples, runtimeCounters, countersNote)
        {
            ServerExited = server?.Exited ?? false,
            ServerExitedProcessId = server?.ExitedProcessId,
            ServerWorkers = server?.Workers,
            ProxyWorkers = proxy?.Workers,
            ProxySamples = proxy?.Samples,
            ProxyMembers = proxy?.MemberCpu(),
            ProxyExitedProcessId = proxy?.ExitedProcessId,
            MachineBefore = machineBefore,
            MachineAfter = machineAfter,
        });
        var row = report.Results[0];
        await LoadReport.PrintAsync(settings, row, LoadReport.Combine([.. runs.Select(r => r.Result)]), output);

        try
        {
            // Not the run's token: after a Ctrl+C it is cancelled, and what was measured is still written, whole.
            await WriteFilesAsync(settings, report, output);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            await error.WriteLineAsync($"error: cannot write the result: {e.Message}");
            return 1;
        }

        return report.Verified ? 0 : 1;
    }

    private static async Task<MeasuredRun> RunOnceAsync(LoadSettings settings, int run, TextWriter error, CancellationToken cancellationToken)
    {
        var monitor = new LoadMonitor();
        var label = settings.Runs > 1 ? $"run {run}/{settings.Runs}  " : "";
        var progress = settings.Progress ? new LoadProgressLine(error, monitor, !Console.IsErrorRedirected && ReferenceEquals(error, Console.Error), label) : null;
        var options = settings.Engine with { Monitor = monitor, OnSecond = progress is null ? null : progress.OnSecond };
        var startedAt = DateTimeOffset.UtcNow;
        var cpuBefore = Environment.CpuUsage.TotalTime;
        LoadResult result;
        try
        {
            result = await LoadEngine.RunAsync(options, cancellationToken);
        }
        finally
        {
            progress?.Finish();
        }

        return new MeasuredRun(startedAt, (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds, result);
    }

    private static async Task WriteFilesAsync(LoadSettings settings, BenchReport report, TextWriter output)
    {
        if (settings.JsonPath is { } json)
        {
            await ResultFile.WriteAsync(json, file => System.Text.Json.JsonSerializer.SerializeAsync(file, report, BenchReport.JsonOptions));

            await output.WriteLineAsync($"json: {json}");
        }

        if (settings.MarkdownPath is null && settings.CsvDirectory is null && settings.HtmlPath is null)
        {
            return;
        }

        // The same model and writers as freight report: one rendering path.
        var model = ReportBuilder.Build([new CompareSource("load", report)]);
        if (settings.MarkdownPath is { } markdown)
        {
            await ResultFile.WriteTextAsync(markdown, MarkdownReportWriter.Render(model));
            await output.WriteLineAsync($"markdown: {markdown}");
        }

        if (settings.CsvDirectory is { } directory)
        {
            var written = await CsvReportWriter.WriteAsync(model, directory);
            await output.WriteLineAsync($"csv: {directory} ({CountText.Format(written.Count, "file")})");
        }

        if (settings.HtmlPath is { } html)
        {
            await ResultFile.WriteTextAsync(html, HtmlReportWriter.Render(model));
            await output.WriteLineAsync($"html: {html}");
        }
    }
}

/// <summary>One measured run: when it started, this process's CPU seconds during it, and the engine's result.</summary>
public sealed record MeasuredRun(DateTimeOffset StartedAt, double ClientCpuSeconds, LoadResult Result);

/// <summary>What was measured around the runs besides the engine's own results: the samples cover them all.</summary>
public sealed record LoadMeasurements(
    IReadOnlyList<MeasuredRun> Runs,
    IReadOnlyList<ProcessStatSnapshot> ClientSamples,
    IReadOnlyList<ProcessStatSnapshot>? ServerSamples,
    IReadOnlyList<RuntimeCounterValue>? RuntimeCounters,
    string? RuntimeCountersNote)
{
    /// <summary>The server process was gone at a sample during the run.</summary>
    public bool ServerExited { get; init; }

    /// <summary>Which of the server's processes was gone (<see cref="ServerExited"/>): the one sampled, or a worker of it.</summary>
    public int? ServerExitedProcessId { get; init; }

    /// <summary>The server's workers the samples summed, those found during the run included; null to take the settings'.</summary>
    public IReadOnlyList<int>? ServerWorkers { get; init; }

    /// <summary>The proxy's workers the samples summed, as <see cref="ServerWorkers"/>.</summary>
    public IReadOnlyList<int>? ProxyWorkers { get; init; }

    /// <summary><c>--through-proxy</c>: the proxy's samples (its workers' summed), as <see cref="ServerSamples"/>.</summary>
    public IReadOnlyList<ProcessStatSnapshot>? ProxySamples { get; init; }

    /// <summary>Each of the proxy's processes: its CPU over the samples, in cores, and its threads (<see cref="ProcessWatch.MemberCpu"/>).</summary>
    public IReadOnlyList<ProcessWatch.MemberUse>? ProxyMembers { get; init; }

    /// <summary>Which of the proxy's processes was gone at a sample during the run; null when none was.</summary>
    public int? ProxyExitedProcessId { get; init; }

    /// <summary>The machine's CPU when the run started and when it ended: what other processes used between.</summary>
    public MachineCpuSnapshot? MachineBefore { get; init; }

    public MachineCpuSnapshot? MachineAfter { get; init; }
}

/// <summary>
/// The live progress line: once a second, that second's responses, MiB/s, p50/p99 and failures. Its MiB/s counts
/// what the summary counts (response bodies read, and the request body of each request answered after it had gone)
/// for the second's own responses, as its req/s: the run's totals read when the second is closed (a grace period
/// later, and the last seconds all at once) gave the bytes of other seconds, 0.0 MiB/s for a last second with
/// responses. Rewritten in place on a terminal; one line a second in a log.
/// </summary>
internal sealed class LoadProgressLine(TextWriter error, LoadMonitor monitor, bool terminal, string label = "")
{
    private readonly Lock _gate = new();
    private bool _finished;

    public void OnSecond(LoadSecond second)
    {
        var totals = monitor.Read();
        var line = string.Create(CultureInfo.InvariantCulture,
            $"{label}{second.Second + 1,4} s  {second.Completions / second.SpanSeconds,9:N0} req/s  {second.MovedBytes / second.SpanSeconds / (1 << 20),9:N1} MiB/s  p50 {Milliseconds(second.P50Seconds)}  p99 {Milliseconds(second.P99Seconds)}  failures {totals.Failures + totals.BadResponses:N0}");
        lock (_gate)
        {
            if (!_finished)
            {
                error.Write(terminal ? "\r" + line + "\u001b[K" : line + Environment.NewLine);
            }
        }
    }

    public void Finish()
    {
        lock (_gate)
        {
            if (terminal && !_finished)
            {
                error.WriteLine();
            }

            _finished = true;
        }
    }

    private static string Milliseconds(double seconds) => string.Create(CultureInfo.InvariantCulture, $"{seconds * 1000,8:0.###} ms");
}
