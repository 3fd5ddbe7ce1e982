using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// A request's hold on an open file: either its own handle (closed when the lease is disposed) or one the
/// <see cref="FileCache"/> keeps open, borrowed with a reference so that the cache letting it go mid-send (the file
/// changed, the cache filled) closes it only after the last borrower is done. Default: no file (the content is cached).
/// </summary>
internal readonly struct FileLease : IDisposable
{
    private readonly bool _borrowed;

    private FileLease(SafeFileHandle file, bool borrowed)
    {
        File = file;
        _borrowed = borrowed;
    }

    /// <summary>The open file, or null when the representation's content is in memory.</summary>
    public SafeFileHandle? File { get; }

    /// <summary>A lease that closes <paramref name="file"/> when disposed.</summary>
    public static FileLease Own(SafeFileHandle file) => new(file, borrowed: false);

    /// <summary>Borrows <paramref name="file"/>, kept open by its owner; false when the owner has already let it go.</summary>
    public static bool TryBorrow(SafeFileHandle file, out FileLease lease)
    {
        var added = false;
        try
        {
            file.DangerousAddRef(ref added);
        }
        catch (ObjectDisposedException)
        {
            // Let go between the lookup and here: the caller opens the file itself.
        }

        lease = added ? new FileLease(file, borrowed: true) : default;
        return added;
    }

    public void Dispose()
    {
        if (_borrowed)
        {
            File!.DangerousRelease();
        }
        else
        {
            File?.Dispose();
        }
    }
}
