namespace Freight.Storage;

/// <summary>What an exception says about a store's backend, for the HTTP layer's answer.</summary>
public enum StoreFailure
{
    /// <summary>Not a failure of the backend (the request's own fault, or a bug).</summary>
    None,

    /// <summary>The backend answered with an error: 502 "Object store failed".</summary>
    Failed,

    /// <summary>The backend could not be reached: 502 "Object store unreachable".</summary>
    Unreachable,
}
