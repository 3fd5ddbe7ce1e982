using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Freight.Bench.Suites.Micro;

namespace Freight.Micro;

/// <summary>Names BenchmarkDotNet's cases as the bench does, and turns its summaries into a <see cref="MicroRun"/>.</summary>
public static class MicroCases
{
    /// <summary><c>micro/{benchmark}/{input}</c>: the benchmark's description (e.g. <c>multipart-freight</c>) and its input's name.</summary>
    public static string Id(BenchmarkCase benchmarkCase)
    {
        ArgumentNullException.ThrowIfNull(benchmarkCase);
        return $"micro/{Benchmark(benchmarkCase)}/{InputOf(benchmarkCase)?.Name ?? "-"}";
    }

    internal static MicroRun ToRun(string job, IEnumerable<Summary> summaries)
    {
        ArgumentNullException.ThrowIfNull(summaries);
        var cases = new List<MicroCase>();
        var failed = new List<string>();
        foreach (var summary in summaries)
        {
            foreach (var benchmarkCase in summary.BenchmarksCases)
            {
                var report = summary[benchmarkCase];
                var input = InputOf(benchmarkCase);
                var perIteration = report?.AllMeasurements
                    .Where(m => m.IterationMode == IterationMode.Workload && m.IterationStage == IterationStage.Result)
                    .Select(m => m.Nanoseconds / m.Operations)
                    .ToList();
                if (report is not { Success: true } || input is null || perIteration is not { Count: > 0 })
                {
                    failed.Add(Id(benchmarkCase));
                    continue;
                }

                cases.Add(new MicroCase(
                    Id(benchmarkCase),
                    Benchmark(benchmarkCase),
                    input.Name,
                    input.Label,
                    input.BytesPerOperation,
                    perIteration,
                    report.GcStats.GetBytesAllocatedPerOperation(benchmarkCase)));
            }
        }

        return new MicroRun(job, MicroConfig.ClockTitle, cases, failed);
    }

    private static string Benchmark(BenchmarkCase benchmarkCase) => benchmarkCase.Descriptor.WorkloadMethodDisplayInfo.Trim('\'');

    /// <summary>The case's <see cref="MicroInput"/> parameter; null for a case without one.</summary>
    public static MicroInput? InputOf(BenchmarkCase benchmarkCase)
    {
        foreach (var parameter in benchmarkCase.Parameters.Items)
        {
            if (parameter.Value is MicroInput input)
            {
                return input;
            }
        }

        return null;
    }
}
