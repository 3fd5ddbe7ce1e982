namespace Freight.Storage;

/// <summary>
/// What travels with a stored object: its length, a strong ETag (quoted, e.g. <c>"3f…"</c>), the modification
/// time, the content type given at upload, and the digests known for it (algorithm name as in RFC 9530,
/// e.g. <c>sha-256</c>, to the raw hash bytes).
/// </summary>
public sealed record ObjectInfo(
    string Key,
    long Length,
    DateTimeOffset LastModified,
    string ETag,
    string? ContentType,
    IReadOnlyDictionary<string, byte[]> Digests);
