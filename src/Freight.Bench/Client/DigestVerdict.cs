namespace Freight.Bench.Client;

/// <summary>What a server's <c>Repr-Digest</c> said about the bytes hashed here.</summary>
public enum DigestVerdict
{
    /// <summary>Every digest we computed and the server sent matches.</summary>
    Verified,

    /// <summary>No field, or none with an algorithm we computed: nothing to check.</summary>
    Absent,

    /// <summary>A digest differs: the bytes are not the server's.</summary>
    Mismatch,

    /// <summary>The field is not a valid RFC 9530 Dictionary: it cannot vouch for anything.</summary>
    Malformed,
}
