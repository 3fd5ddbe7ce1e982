namespace Freight.Downloads;

/// <summary>What a Range header asks of a representation (RFC 9110 §14.1.1, §14.2).</summary>
public enum ByteRangeOutcome
{
    /// <summary>
    /// No usable Range: absent, another unit, invalid, or refused as abusive. RFC 9110 §14.2 lets a server
    /// ignore such a header: answer 200 with the whole representation.
    /// </summary>
    Ignore,

    /// <summary>Valid, but no range overlaps the representation: 416 with <c>Content-Range: bytes */length</c> (§15.5.17).</summary>
    Unsatisfiable,

    /// <summary>One or more ranges to send: 206 (§15.3.7).</summary>
    Satisfiable,
}
