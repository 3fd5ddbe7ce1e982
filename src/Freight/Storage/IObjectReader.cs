using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>
/// One version of an object, open for reading by byte range: <see cref="Info"/> describes exactly the bytes
/// this reader returns, whatever writes happen meanwhile.
/// </summary>
public interface IObjectReader : IAsyncDisposable
{
    ObjectInfo Info { get; }

    /// <summary>The file's open handle, when the store is a file system: the download path reads it straight into the response.</summary>
    SafeFileHandle? FileHandle { get; }

    /// <summary>The whole content, when the store holds it in memory.</summary>
    ReadOnlyMemory<byte>? Content { get; }

    /// <summary>Reads up to <paramref name="destination"/>'s length from <paramref name="offset"/>; 0 at the end.</summary>
    ValueTask<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default);
}
