namespace Freight.Storage;

/// <summary>Where uploaded bytes go. Implementations: <see cref="FileSystemObjectStore"/>.</summary>
public interface IObjectStore
{
    /// <summary>Starts a write session for <paramref name="key"/>; nothing is visible until it commits.</summary>
    ValueTask<IObjectWriter> BeginWriteAsync(string key, CancellationToken cancellationToken = default);
}
