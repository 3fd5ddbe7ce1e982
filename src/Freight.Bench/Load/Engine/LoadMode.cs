namespace Freight.Bench.Load.Engine;

public enum LoadMode
{
    /// <summary>Workers each loop request → response → next request (constant count or a ramp).</summary>
    ClosedLoop,

    /// <summary>Requests start on a fixed schedule whatever the responses do; latency from the schedule.</summary>
    OpenLoop,
}
