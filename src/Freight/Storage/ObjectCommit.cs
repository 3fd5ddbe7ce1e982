namespace Freight.Storage;

/// <summary>What a writer commits besides the bytes: metadata to keep and the condition to meet.</summary>
public sealed record ObjectCommit
{
    /// <summary>A commit with no condition and the type from the key.</summary>
    public static readonly ObjectCommit Unconditional = new();

    /// <summary>The object's strong ETag (quoted), computed while the bytes streamed in; null: the store derives one when first asked.</summary>
    public string? ETag { get; init; }

    /// <summary>The media type stored with the object; null: from the key's extension.</summary>
    public string? ContentType { get; init; }

    /// <summary>Digests computed while streaming (RFC 9530 algorithm name → raw bytes).</summary>
    public IReadOnlyDictionary<string, byte[]>? Digests { get; init; }

    /// <summary>The condition the replaced object must meet (If-Match / If-None-Match); <see cref="WriteCondition.None"/> by default.</summary>
    public WriteCondition Condition { get; init; } = WriteCondition.None;
}
