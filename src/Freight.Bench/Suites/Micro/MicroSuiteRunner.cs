using System.Text.Json;
using Freight.Bench.Peers;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Micro;

/// <summary>
/// Runs the micro suite: <c>dotnet run -c Release --project bench/Freight.Micro</c> of the clone the bench runs from,
/// which leaves BenchmarkDotNet's reports and <see cref="MicroRun.FileName"/> in <paramref name="artifactsDirectory"/>;
/// then turns that file into rows (GB/s a core per iteration) and issue 19's parser goals.
/// </summary>
/// <remarks>
/// A child process and not BenchmarkDotNet inside the bench: BenchmarkDotNet and what it pulls in stay out of the
/// freight CLI, BenchmarkDotNet wants a Release build of the code it measures (the CLI is one, a test host need not
/// be), and a fresh process measures the code without the bench's own heap and JIT state. <c>dotnet run</c> builds the
/// project first when it changed, so a clean clone needs nothing else.
/// </remarks>
public sealed class MicroSuiteRunner(BenchOptions options, IBenchProgress progress, string artifactsDirectory)
{
    /// <summary>
    /// The short job needs about 50 CPU-seconds, and a first build of the project about a minute; its clock counts CPU
    /// time, so neighbours that take the cores stretch it (about 20× at a load average of 50 on 2 cores). The default
    /// job runs for tens of minutes. Past these the run is killed and the suite fails.
    /// </summary>
    private static readonly TimeSpan ShortLimit = TimeSpan.FromMinutes(60);

    private static readonly TimeSpan DefaultLimit = TimeSpan.FromHours(3);

    private const double PlannedShortSeconds = 120;

    public async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, bool Verified)> RunAsync(CancellationToken cancellationToken)
    {
        var job = options.MicroJob;
        progress.SuiteStarted(MicroSuite.Name, $"micro suite: BenchmarkDotNet, {job} job, artifacts in {artifactsDirectory}", job == MicroSuite.ShortJob ? PlannedShortSeconds : 3600);
        try
        {
            if (NodePackages.FindRepositoryRoot() is not { } root || !Directory.Exists(Path.Combine(root, MicroSuite.ProjectDirectory)))
            {
                return Failed($"{MicroSuite.ProjectDirectory} was not found above {AppContext.BaseDirectory} (run the bench from a clone)");
            }

            Directory.CreateDirectory(artifactsDirectory);
            List<string> arguments = ["run", "-c", "Release", "--project", Path.Combine(root, MicroSuite.ProjectDirectory), "--", "--job", job, "--artifacts", artifactsDirectory];
            if (options.Filter is { } filter)
            {
                arguments.AddRange(["--filter", filter]);
            }

            progress.Line($"micro: dotnet {string.Join(' ', arguments)}");
            var run = await ChildProcess.RunAsync("dotnet", arguments, root, job == MicroSuite.ShortJob ? ShortLimit : DefaultLimit, cancellationToken);
            var log = Path.Combine(artifactsDirectory, "micro.log");
            await File.WriteAllTextAsync(log, run.Stdout + run.Stderr, cancellationToken);
            progress.Line($"micro: BenchmarkDotNet's output: {log}");

            var resultPath = Path.Combine(artifactsDirectory, MicroRun.FileName);
            if (!File.Exists(resultPath))
            {
                return Failed(run.ExitCode is null
                    ? $"killed after {(job == MicroSuite.ShortJob ? ShortLimit : DefaultLimit).TotalMinutes:0} minutes; see {log}"
                    : $"exit code {run.ExitCode} and no {MicroRun.FileName}: {ChildProcess.Tail(run.Stderr + run.Stdout, 1000)}");
            }

            MicroRun? result;
            await using (var file = File.OpenRead(resultPath))
            {
                result = await JsonSerializer.DeserializeAsync<MicroRun>(file, MicroRun.JsonOptions, cancellationToken);
            }

            if (result is null)
            {
                return Failed($"{resultPath} is empty");
            }

            var rows = ToRows(result);
            var ratios = MicroRatios.Compute(rows).ToList();
            return (rows, ratios, result.Failed.Count == 0 && run.ExitCode == 0);
        }
        finally
        {
            progress.SuiteFinished();
        }
    }

    /// <summary>One row per case: GB/s a core per iteration (bytes per operation over the iteration's time per operation).</summary>
    internal static List<ScenarioResult> ToRows(MicroRun run)
    {
        ArgumentNullException.ThrowIfNull(run);
        var rows = new List<ScenarioResult>();
        foreach (var c in run.Cases)
        {
            var parameters = new ScenarioParameters
            {
                Label = c.Label,
                Benchmark = c.Benchmark,
                Input = c.Input,
                BytesPerOperation = c.BytesPerOperation,
                Job = run.Job,
                Clock = run.Clock,
            };
            if (c.AllocatedBytesPerOperation is { } allocated)
            {
                parameters.AllocatedBytesPerOperation = allocated;
            }

            var bytesPerSecond = new List<double>(c.NanosecondsPerOperation.Count);
            foreach (var nanoseconds in c.NanosecondsPerOperation)
            {
                bytesPerSecond.Add(c.BytesPerOperation / (nanoseconds * 1e-9));
            }

            var row = ScenarioSummary.Row(c.Id, MicroSuite.Name, parameters, null);
            row.Runs = c.NanosecondsPerOperation.Count;
            row.BytesPerSecond = Summary.OfRuns(bytesPerSecond);
            rows.Add(row);
        }

        foreach (var id in run.Failed)
        {
            rows.Add(ScenarioSummary.Row(
                id,
                MicroSuite.Name,
                new ScenarioParameters { Label = id, Job = run.Job },
                "the case failed: its input did not verify or it threw (micro.log says which)"));
        }

        return rows;
    }

    private (List<ScenarioResult>, List<RatioResult>, bool) Failed(string reason)
    {
        progress.Line(ProgressText.Sanitize($"micro: no figures: {reason}"));
        return ([ScenarioSummary.Row("micro", MicroSuite.Name, new ScenarioParameters { Label = "bench/Freight.Micro" }, reason)], [], false);
    }
}
