namespace Freight.Storage;

/// <summary>What a writer commits besides the bytes: metadata to keep and the condition to meet.</summary>
public sealed record ObjectCommit
{
    public static readonly ObjectCommit Unconditional = new();

    /// <summary>The object's strong ETag (quoted), computed while the bytes streamed in; null: the store derives one when first asked.</summary>
    public string? ETag { get; init; }

    public string? ContentType { get; init; }

    /// <summary>Digests computed while streaming (RFC 9530 algorithm name → raw bytes).</summary>
    public IReadOnlyDictionary<string, byte[]>? Digests { get; init; }

    public WriteCondition Condition { get; init; } = WriteCondition.None;
}
