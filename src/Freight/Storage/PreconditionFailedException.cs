namespace Freight.Storage;

/// <summary>A write or delete whose <see cref="WriteCondition"/> did not hold; nothing was changed.</summary>
public sealed class PreconditionFailedException : Exception
{
    public PreconditionFailedException()
        : base("The object's current state does not meet the write's condition.")
    {
    }

    public PreconditionFailedException(string message)
        : base(message)
    {
    }

    public PreconditionFailedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
