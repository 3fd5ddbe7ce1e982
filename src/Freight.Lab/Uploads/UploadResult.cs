namespace Freight.Lab.Uploads;

/// <summary>What an upload received: its length and the XXH3-128 of its content (32 hex chars).</summary>
public sealed record UploadResult(long Bytes, string Hash);
