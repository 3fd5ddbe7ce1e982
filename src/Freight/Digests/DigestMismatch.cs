namespace Freight.Digests;

/// <summary>A digest the client sent that differs from the one computed over the bytes received.</summary>
public sealed class DigestMismatch
{
    /// <summary>A mismatch of <paramref name="algorithm"/>: the client sent <paramref name="expected"/>, the bytes hash to <paramref name="actual"/>.</summary>
    public DigestMismatch(DigestAlgorithm algorithm, byte[] expected, byte[] actual)
    {
        ArgumentNullException.ThrowIfNull(algorithm);
        ArgumentNullException.ThrowIfNull(expected);
        ArgumentNullException.ThrowIfNull(actual);
        Algorithm = algorithm;
        Expected = expected;
        Actual = actual;
    }

    /// <summary>The algorithm whose digest differed.</summary>
    public DigestAlgorithm Algorithm { get; }

    /// <summary>The digest the client sent.</summary>
    public ReadOnlyMemory<byte> Expected { get; }

    /// <summary>The digest of the bytes received.</summary>
    public ReadOnlyMemory<byte> Actual { get; }

    /// <summary>For a problem detail: <c>sha-256: sent :…:, computed :…:</c> (base64, as the fields carry them).</summary>
    public override string ToString() =>
        $"{Algorithm.Name}: sent :{Convert.ToBase64String(Expected.Span)}:, computed :{Convert.ToBase64String(Actual.Span)}:";
}
