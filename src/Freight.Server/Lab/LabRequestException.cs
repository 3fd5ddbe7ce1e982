namespace Freight.Server.Errors;

/// <summary>A request the server refuses for a reason the client can fix; becomes a 400 problem.</summary>
public sealed class LabRequestException : Exception
{
    public LabRequestException()
    {
    }

    public LabRequestException(string message)
        : base(message)
    {
    }

    public LabRequestException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
