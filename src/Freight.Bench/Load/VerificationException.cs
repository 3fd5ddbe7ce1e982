namespace Freight.Bench.Load;

/// <summary>A transfer whose bytes, length or status were not what was sent: the run yields no number.</summary>
public sealed class VerificationException : Exception
{
    public VerificationException()
    {
    }

    public VerificationException(string message)
        : base(message)
    {
    }

    public VerificationException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
