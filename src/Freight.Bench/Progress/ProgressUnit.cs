namespace Freight.Bench.Progress;

/// <summary>What a step's live rate counts: bytes (MiB/s) for transfers, responses (req/s) for load.</summary>
public enum ProgressUnit
{
    Bytes,
    Requests,
}
