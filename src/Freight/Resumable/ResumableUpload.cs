using System.Text.Json.Serialization;

namespace Freight.Resumable;

/// <summary>What a resumable upload is for: a file of its own, a part of a later one, or the join of parts.</summary>
public enum ResumableUploadKind
{
    /// <summary>Becomes a file when its last byte arrives.</summary>
    Regular,

    /// <summary>One piece of a parallel upload; never a file by itself (tus concatenation: <c>partial</c>).</summary>
    Partial,

    /// <summary>The join of complete partial uploads, made a file at once (tus concatenation: <c>final</c>).</summary>
    Final,
}

/// <summary>
/// A resumable upload as its store keeps it: declared once (length, possibly later; metadata; kind), bytes
/// appended in order, and — once all arrived and were stored as a file — its completion. The record lives in
/// the store, never only in a node's memory, so any node (or the same one after a restart) can continue it.
/// </summary>
public sealed record ResumableUpload
{
    /// <summary>The upload's id: 32 lower-case hex digits, unguessable (it is the capability to write).</summary>
    public required string Id { get; init; }

    /// <summary>The total length; null while the client has not said yet (tus creation-defer-length).</summary>
    public long? Length { get; init; }

    /// <summary>Bytes stored so far. Reported by the store from the data itself, never saved in the record.</summary>
    [JsonIgnore]
    public long Offset { get; init; }

    /// <summary>The client's metadata exactly as sent (tus Upload-Metadata), returned as is.</summary>
    public string? Metadata { get; init; }

    /// <summary>Regular, a partial upload, or the final concatenation of partial ones.</summary>
    public ResumableUploadKind Kind { get; init; }

    /// <summary>For a final upload: the partial uploads it joins, in order.</summary>
    public IReadOnlyList<string> Parts { get; init; } = [];

    /// <summary>The files-store key it becomes when complete; null for a partial upload.</summary>
    public string? TargetKey { get; init; }

    /// <summary>When the upload was created.</summary>
    public DateTimeOffset CreatedAt { get; init; }

    /// <summary>The address of the client that created it: per-client quotas count by it. Null in records from before it was kept.</summary>
    public string? Client { get; init; }

    /// <summary>The last time bytes arrived (or the creation): expiry counts from it. Reported by the store.</summary>
    [JsonIgnore]
    public DateTimeOffset LastActivityAt { get; init; }

    /// <summary>Set once the bytes became the file <see cref="ResumableCompletion.Key"/>.</summary>
    public ResumableCompletion? Completion { get; init; }

    /// <summary>Every declared byte has arrived.</summary>
    [JsonIgnore]
    public bool HasAllBytes => Length is { } length && Offset == length;
}

/// <summary>The file a finished upload became, with the metadata it was committed with (to finish the move after a crash).</summary>
public sealed record ResumableCompletion(
    string Key,
    string ETag,
    string? ContentType,
    IReadOnlyDictionary<string, byte[]>? Digests,
    DateTimeOffset CompletedAt);
