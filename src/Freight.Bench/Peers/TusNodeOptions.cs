namespace Freight.Bench.Peers;

/// <summary>Where <see cref="TusNode.StartAsync"/> keeps the uploads and runs the process.</summary>
public sealed record TusNodeOptions
{
    /// <summary>The file store's directory: upload ID's bytes land in <c>{StoreDirectory}/{ID}</c>, its metadata in <c>{ID}.json</c>. Created when missing.</summary>
    public required string StoreDirectory { get; init; }

    /// <summary>The process's working directory (the bench's work directory). Created when missing.</summary>
    public required string WorkDirectory { get; init; }
}
