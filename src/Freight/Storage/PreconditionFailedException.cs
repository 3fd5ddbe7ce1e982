namespace Freight.Storage;

/// <summary>A write or delete whose <see cref="WriteCondition"/> did not hold; nothing was changed.</summary>
public sealed class PreconditionFailedException : Exception
{
    /// <summary>The write's condition (If-Match / If-None-Match) did not hold.</summary>
    public PreconditionFailedException()
        : base("The object's current state does not meet the write's condition.")
    {
    }

    /// <summary>A failed condition described by <paramref name="message"/>.</summary>
    public PreconditionFailedException(string message)
        : base(message)
    {
    }

    /// <summary>A failed condition described by <paramref name="message"/>, caused by <paramref name="innerException"/>.</summary>
    public PreconditionFailedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
