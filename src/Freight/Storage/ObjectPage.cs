namespace Freight.Storage;

/// <summary>One page of a listing, in ordinal key order; <see cref="NextCursor"/> is null on the last page.</summary>
public sealed record ObjectPage(IReadOnlyList<ObjectInfo> Objects, string? NextCursor);
