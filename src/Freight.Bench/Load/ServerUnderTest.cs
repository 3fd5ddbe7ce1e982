using Freight.Bench.Measure;

namespace Freight.Bench.Load;

/// <summary>A server the bench measures: where to reach it, its counters, and a client bound to it.</summary>
public sealed record ServerUnderTest(string Name, BenchTarget Target, ServerMetrics Metrics, TransferClient Transfers);
