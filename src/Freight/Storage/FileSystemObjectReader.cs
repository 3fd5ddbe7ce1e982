using Microsoft.Win32.SafeHandles;

namespace Freight.Storage;

/// <summary>An open version of a file-system object: reads go to the handle, which keeps this version even if the file is replaced.</summary>
internal sealed class FileSystemObjectReader(ObjectInfo info, SafeFileHandle handle) : IObjectReader
{
    public ObjectInfo Info { get; } = info;

    public SafeFileHandle? FileHandle => handle;

    public ReadOnlyMemory<byte>? Content => null;

    public ValueTask<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default) =>
        RandomAccess.ReadAsync(handle, destination, offset, cancellationToken);

    public ValueTask DisposeAsync()
    {
        handle.Dispose();
        return ValueTask.CompletedTask;
    }
}
