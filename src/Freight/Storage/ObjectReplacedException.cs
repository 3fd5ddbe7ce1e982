namespace Freight.Storage;

/// <summary>
/// The version a reader opened is gone (replaced or deleted) and the store keeps no old versions (S3 without
/// bucket versioning): the read fails rather than return another version's bytes under this one's headers.
/// Until an answer has started, opening the key again reads the version that replaced it.
/// </summary>
public sealed class ObjectReplacedException : IOException
{
    /// <summary>The object was replaced while it was read.</summary>
    public ObjectReplacedException()
        : base("The object was replaced while it was being read.")
    {
    }

    /// <summary>A replacement described by <paramref name="message"/>.</summary>
    public ObjectReplacedException(string message)
        : base(message)
    {
    }

    /// <summary>A replacement described by <paramref name="message"/>, caused by <paramref name="innerException"/>.</summary>
    public ObjectReplacedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
