namespace Freight.Storage;

/// <summary>
/// A key a file system cannot hold beside the keys already there: <c>a</c> when <c>a/b</c> exists (a folder),
/// or <c>a/b</c> when <c>a</c> is a file. Nothing was changed.
/// </summary>
public sealed class KeyConflictException : Exception
{
    /// <summary>A key that conflicts with a stored one (a file where a folder is, or the reverse).</summary>
    public KeyConflictException()
        : base("The key collides with another object's path.")
    {
    }

    /// <summary>A conflict described by <paramref name="message"/>.</summary>
    public KeyConflictException(string message)
        : base(message)
    {
    }

    /// <summary>A conflict described by <paramref name="message"/>, caused by <paramref name="innerException"/>.</summary>
    public KeyConflictException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
