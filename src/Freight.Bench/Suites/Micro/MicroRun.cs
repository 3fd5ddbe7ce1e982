using System.Text.Json;

namespace Freight.Bench.Suites.Micro;

/// <summary>
/// What one run of bench/Freight.Micro measured, as it writes it (<see cref="FileName"/> in its artifacts folder) and
/// <c>freight bench --suite micro</c> reads it. The file is compiled into both projects, so writer and reader agree.
/// </summary>
/// <param name="Job">The BenchmarkDotNet job: <c>short</c> or <c>default</c>.</param>
/// <param name="Clock">What the times count: <c>thread CPU time</c> (Linux) or <c>wall time</c>.</param>
/// <param name="Cases">One entry per benchmark case that completed; a case that failed (its input did not verify) is absent.</param>
/// <param name="Failed">Ids of the cases that ran but produced no measurement.</param>
internal sealed record MicroRun(string Job, string Clock, IReadOnlyList<MicroCase> Cases, IReadOnlyList<string> Failed)
{
    public const string FileName = "micro-run.json";

    public static readonly JsonSerializerOptions JsonOptions = new(JsonSerializerDefaults.Web) { WriteIndented = true };
}

/// <summary>One benchmark case.</summary>
/// <param name="Id"><c>micro/{benchmark}/{input}</c>, e.g. <c>micro/multipart-freight/large-parts</c>.</param>
/// <param name="Benchmark">The measured code: <c>multipart-freight</c>, <c>multipart-aspnetcore</c>, <c>range-set</c>, …</param>
/// <param name="Input">The input's name, e.g. <c>crlf-flood</c>.</param>
/// <param name="Label">The input described for a reader.</param>
/// <param name="BytesPerOperation">Input bytes one operation processes: what GB/s is computed from.</param>
/// <param name="NanosecondsPerOperation">One figure per measured iteration, in order (BenchmarkDotNet's workload results, outliers kept).</param>
/// <param name="AllocatedBytesPerOperation">Managed bytes allocated per operation (BenchmarkDotNet's memory diagnoser).</param>
internal sealed record MicroCase(
    string Id,
    string Benchmark,
    string Input,
    string Label,
    long BytesPerOperation,
    IReadOnlyList<double> NanosecondsPerOperation,
    long? AllocatedBytesPerOperation);
