namespace Freight.Bench.Load;

/// <summary>One verified transfer: bytes moved, wall time, and time to first body byte (downloads).</summary>
public readonly record struct TransferOutcome(long Bytes, double Seconds, double? TimeToFirstByteSeconds);
