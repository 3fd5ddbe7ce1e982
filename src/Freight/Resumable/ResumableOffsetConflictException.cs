namespace Freight.Resumable;

/// <summary>An append that does not start where the upload's bytes end (another writer moved it, or the client's offset is stale).</summary>
public sealed class ResumableOffsetConflictException : Exception
{
    /// <summary>An append at <paramref name="requested"/> when the upload is at <paramref name="current"/>.</summary>
    public ResumableOffsetConflictException(long requested, long current)
        : base($"The upload holds {current} bytes; an append must start there, not at {requested}.")
    {
        Requested = requested;
        Current = current;
    }

    /// <summary>An append at an offset that is not the upload's.</summary>
    public ResumableOffsetConflictException()
    {
    }

    /// <summary>An offset conflict described by <paramref name="message"/>.</summary>
    public ResumableOffsetConflictException(string message)
        : base(message)
    {
    }

    /// <summary>An offset conflict described by <paramref name="message"/>, caused by <paramref name="innerException"/>.</summary>
    public ResumableOffsetConflictException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>The offset the client asked to write at.</summary>
    public long Requested { get; }

    /// <summary>The upload's offset.</summary>
    public long Current { get; }
}
