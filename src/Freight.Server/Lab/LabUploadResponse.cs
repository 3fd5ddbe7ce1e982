namespace Freight.Server.Lab;

/// <summary>What every lab upload answers: the file content's length and XXH3-128, and the form fields.</summary>
public sealed record LabUploadResponse(long Bytes, string Hash, IReadOnlyDictionary<string, string>? Fields = null);
