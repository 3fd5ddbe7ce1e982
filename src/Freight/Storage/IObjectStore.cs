namespace Freight.Storage;

/// <summary>Where uploaded bytes go. Implementations: <see cref="FileSystemObjectStore"/>.</summary>
public interface IObjectStore
{
    /// <summary>
    /// Starts a write session for <paramref name="key"/>; nothing is visible until it commits.
    /// <paramref name="expectedLength"/>, when known (a request's Content-Length), lets the store reserve
    /// the space up front.
    /// </summary>
    ValueTask<IObjectWriter> BeginWriteAsync(string key, long? expectedLength = null, CancellationToken cancellationToken = default);
}
