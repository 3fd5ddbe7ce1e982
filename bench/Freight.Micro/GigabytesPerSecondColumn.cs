using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Freight.Micro;

/// <summary>
/// Throughput of one core: the input bytes of an operation (<see cref="MicroInput.BytesPerOperation"/>) over its mean
/// time. Bytes per nanosecond are decimal GB/s (10⁹ bytes a second); every benchmark here runs on one thread, so
/// the figure is per core.
/// </summary>
public sealed class GigabytesPerSecondColumn : IColumn
{
    public string Id => nameof(GigabytesPerSecondColumn);

    public string ColumnName => "GB/s";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Input bytes per second of one core, in 10^9 bytes (input bytes per operation / mean time)";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, SummaryStyle.Default);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        ArgumentNullException.ThrowIfNull(summary);
        var mean = summary[benchmarkCase]?.ResultStatistics?.Mean;
        return MicroCases.InputOf(benchmarkCase)?.BytesPerOperation is { } bytes && mean is > 0
            ? (bytes / mean.Value).ToString(bytes / mean.Value >= 10 ? "0.0" : "0.000", CultureInfo.InvariantCulture)
            : "-";
    }

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;
}
