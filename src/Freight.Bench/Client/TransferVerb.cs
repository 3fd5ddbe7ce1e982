namespace Freight.Bench.Client;

/// <summary>Which client command a command line is for.</summary>
public enum TransferVerb
{
    /// <summary><c>freight put FILE URL</c>.</summary>
    Put,

    /// <summary><c>freight get URL FILE</c>.</summary>
    Get,
}
