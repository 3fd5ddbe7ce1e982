using System.Text.Json;
using BenchmarkDotNet.Running;
using Freight.Bench.Suites.Micro;
using Freight.Micro;
using Freight.Micro.Hashing;
using Freight.Micro.Headers;
using Freight.Micro.Multipart;

// bench/Freight.Micro: BenchmarkDotNet over Freight's socket-free hot paths (docs/bench.md, Micro-benchmarks).
var options = MicroOptions.Parse(args, out var error);
if (options is null || args is ["--help"] or ["-h"])
{
    await (options is null ? Console.Error : Console.Out).WriteLineAsync(error is null ? MicroOptions.Usage : $"error: {error}\n{MicroOptions.Usage}");
    return options is null ? 2 : 0;
}

Type[] benchmarks = [typeof(MultipartParsingBenchmarks), typeof(RangeSetBenchmarks), typeof(DigestFieldsBenchmarks), typeof(StorageKeyBenchmarks), typeof(HashBenchmarks)];
var config = MicroConfig.Create(options);
var runs = new List<BenchmarkRunInfo>();
foreach (var type in benchmarks)
{
    var all = BenchmarkConverter.TypeToBenchmarks(type, config);
    var selected = all.BenchmarksCases.Where(c => options.Filter is null || MicroCases.Id(c).Contains(options.Filter, StringComparison.Ordinal)).ToArray();
    if (selected.Length > 0)
    {
        runs.Add(new BenchmarkRunInfo(selected, type, all.Config));
    }
}

if (options.List || runs.Count == 0)
{
    foreach (var benchmarkCase in runs.SelectMany(r => r.BenchmarksCases))
    {
        Console.WriteLine(MicroCases.Id(benchmarkCase));
    }

    if (runs.Count == 0)
    {
        await Console.Error.WriteLineAsync($"error: no case matches --filter '{options.Filter}'.");
        return 2;
    }

    return 0;
}

var summaries = BenchmarkRunner.Run([.. runs]);
var run = MicroCases.ToRun(options.Job, summaries);
Directory.CreateDirectory(options.ArtifactsDirectory);
var resultPath = Path.Combine(options.ArtifactsDirectory, MicroRun.FileName);
await using (var file = File.Create(resultPath))
{
    await JsonSerializer.SerializeAsync(file, run, MicroRun.JsonOptions);
}

Console.WriteLine($"micro: {run.Cases.Count} cases measured, {run.Failed.Count} failed; {resultPath}");
return run.Failed.Count == 0 ? 0 : 1;
