namespace Freight.Uploads;

/// <summary>
/// An upload brought more than the bytes it was allowed (<see cref="MaxBytes"/>); the refused chunk was not written.
/// Each protocol answers it its own way (a 413 problem for a PUT or a part, tus' own for a PATCH).
/// </summary>
internal sealed class UploadTooLargeException(long maxBytes)
    : Exception($"The upload brought more than the {maxBytes} bytes it may hold.")
{
    public long MaxBytes { get; } = maxBytes;
}
