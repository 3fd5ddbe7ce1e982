namespace Freight.Storage;

/// <summary>
/// Recognises a write the storage refused for good: its volume read-only (EROFS), no permission (EACCES, EPERM), or
/// the store's directory no longer at its path (<see cref="StoreDirectoryMovedException"/>). Like
/// <see cref="OutOfSpace"/>, the one place that knows how the runtime reports it, so the server answers 503 with a
/// clear problem rather than a 500 with a stack.
/// </summary>
internal static class Unwritable
{
    // On Unix .NET puts the errno in IOException.HResult; EROFS is 30 on Linux, macOS and the BSDs. EACCES and EPERM
    // come as UnauthorizedAccessException.
    private const int Erofs = 30;

    // HRESULT_FROM_WIN32(ERROR_WRITE_PROTECT).
    private const int WindowsWriteProtect = unchecked((int)0x80070013);

    /// <summary>Whether <paramref name="exception"/>, or one it wraps, is a write the storage refuses.</summary>
    public static bool Is(Exception? exception)
    {
        for (var current = exception; current is not null; current = current.InnerException)
        {
            if (current is UnauthorizedAccessException or StoreDirectoryMovedException
                || (current is IOException { HResult: var code } && code == (OperatingSystem.IsWindows() ? WindowsWriteProtect : Erofs)))
            {
                return true;
            }
        }

        return false;
    }
}

/// <summary>The path a file-system store was opened at no longer names the directory it holds open (moved, replaced or unmounted).</summary>
internal sealed class StoreDirectoryMovedException(string message) : IOException(message);
