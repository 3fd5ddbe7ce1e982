namespace Freight.Resumable;

/// <summary>An append that does not start where the upload's bytes end (another writer moved it, or the client's offset is stale).</summary>
public sealed class ResumableOffsetConflictException : Exception
{
    public ResumableOffsetConflictException(long requested, long current)
        : base($"The upload holds {current} bytes; an append must start there, not at {requested}.")
    {
        Requested = requested;
        Current = current;
    }

    public ResumableOffsetConflictException()
    {
    }

    public ResumableOffsetConflictException(string message)
        : base(message)
    {
    }

    public ResumableOffsetConflictException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public long Requested { get; }

    public long Current { get; }
}
