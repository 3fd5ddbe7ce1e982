namespace Freight.Resumable;

/// <summary>
/// A resumable-upload store whose backend can keep leftovers a stopped node never cleaned up (an S3 bucket's
/// multipart uploads and staged objects); the tus expiry sweep asks it to remove them.
/// </summary>
public interface IAbandonedUploadSweeper
{
    /// <summary>Removes leftovers older than <paramref name="olderThan"/>; returns how many.</summary>
    ValueTask<int> SweepAbandonedAsync(TimeSpan olderThan, CancellationToken cancellationToken = default);
}
