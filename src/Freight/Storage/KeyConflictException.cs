namespace Freight.Storage;

/// <summary>
/// A key a file system cannot hold beside the keys already there: <c>a</c> when <c>a/b</c> exists (a folder),
/// or <c>a/b</c> when <c>a</c> is a file. Nothing was changed.
/// </summary>
public sealed class KeyConflictException : Exception
{
    public KeyConflictException()
        : base("The key collides with another object's path.")
    {
    }

    public KeyConflictException(string message)
        : base(message)
    {
    }

    public KeyConflictException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
