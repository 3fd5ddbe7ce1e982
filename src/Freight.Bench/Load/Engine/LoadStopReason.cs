namespace Freight.Bench.Load.Engine;

/// <summary>Which bound ended a run.</summary>
public enum LoadStopReason
{
    /// <summary>Every one of <see cref="LoadOptions.MaxRequests"/> requests was issued and finished.</summary>
    MaxRequests,

    /// <summary><see cref="LoadOptions.Duration"/> elapsed; requests still in flight were cancelled.</summary>
    Duration,

    /// <summary>The caller's token was cancelled; requests still in flight were cancelled.</summary>
    Cancelled,
}
