using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>
/// One version of an object, open for reading by byte range: <see cref="Info"/> describes exactly the bytes
/// this reader returns, whatever writes happen meanwhile.
/// </summary>
public interface IObjectReader : IAsyncDisposable
{
    /// <summary>The object's length, ETag, type and time, as of the open.</summary>
    ObjectInfo Info { get; }

    /// <summary>The file's open handle, when the store is a file system: the download path reads it straight into the response.</summary>
    SafeFileHandle? FileHandle { get; }

    /// <summary>The whole content, when the store holds it in memory.</summary>
    ReadOnlyMemory<byte>? Content { get; }

    /// <summary>Reads up to <paramref name="destination"/>'s length from <paramref name="offset"/>; 0 at the end.</summary>
    ValueTask<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default);

    /// <summary>
    /// Exactly <paramref name="length"/> bytes from <paramref name="offset"/> as a forward-only stream: one ranged
    /// request for a remote store (S3), reads through <see cref="ReadAsync"/> otherwise. Dispose it when done.
    /// </summary>
    ValueTask<Stream> OpenRangeAsync(long offset, long length, CancellationToken cancellationToken = default) =>
        ValueTask.FromResult<Stream>(new ObjectReaderStream(this, offset, length));
}
