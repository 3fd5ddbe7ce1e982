namespace Freight.Downloads;

/// <summary>
/// One satisfiable byte range of a representation, both ends inclusive (RFC 9110 §14.1.2: "the byte
/// positions specified are inclusive"), already clipped to the representation's length.
/// </summary>
public readonly record struct ByteRange(long First, long Last)
{
    /// <summary>Bytes in the range: <c>Last - First + 1</c>.</summary>
    public long Length => Last - First + 1;
}
