namespace Freight.Multipart;

/// <summary>
/// Thrown when a <c>multipart/*</c> body violates RFC 2046 §5.1 / RFC 7578 or exceeds a <see cref="MultipartLimits"/> limit.
/// Malformed input is always reported with this type (never an unrelated exception), so a server can map it to HTTP 400.
/// </summary>
public sealed class MultipartFormatException : Exception
{
    /// <summary>Creates an exception with a default message.</summary>
    public MultipartFormatException()
        : base("The multipart body is malformed.")
    {
    }

    /// <summary>Creates an exception with the given message.</summary>
    public MultipartFormatException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with the given message and inner exception.</summary>
    public MultipartFormatException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
