using Freight.Bench.Measure;

namespace Freight.Bench.Load;

/// <summary>
/// A server the bench measures: where to reach it, its counters, a client bound to it, and the instructions counter
/// attached to its process for each run (null, or one that says why not, where instructions cannot be counted).
/// </summary>
public sealed record ServerUnderTest(string Name, BenchTarget Target, ServerMetrics Metrics, TransferClient Transfers, InstructionCounter? Instructions = null);
