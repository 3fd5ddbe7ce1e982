using Freight.Digests;
using Microsoft.Extensions.Primitives;

namespace Freight.Bench.Client;

/// <summary>Checks a <c>Repr-Digest</c> field (RFC 9530 §3) against what was hashed locally.</summary>
public static class ReprDigestCheck
{
    /// <summary>The field's lines in <paramref name="response"/>; empty when it has none.</summary>
    public static StringValues Field(HttpResponseMessage response)
    {
        ArgumentNullException.ThrowIfNull(response);
        return response.Headers.TryGetValues(DigestFields.ReprDigestHeader, out var values) ? new StringValues([.. values]) : StringValues.Empty;
    }

    /// <summary>
    /// The algorithms to compute for a body answered with <paramref name="field"/>: sha-256 always (it is
    /// what we print and asked for), plus sha-512 when the server sent only or also that.
    /// </summary>
    public static IReadOnlyList<DigestAlgorithm> AlgorithmsFor(StringValues field)
    {
        var algorithms = new List<DigestAlgorithm> { DigestAlgorithm.Sha256 };
        if (DigestFields.TryParse(field, out var digests))
        {
            foreach (var algorithm in DigestFields.VerifiableAlgorithms(digests))
            {
                if (!algorithms.Contains(algorithm))
                {
                    algorithms.Add(algorithm);
                }
            }
        }

        return algorithms;
    }

    /// <summary>
    /// Compares every digest in <paramref name="field"/> whose algorithm <paramref name="computed"/> holds.
    /// Unknown and deprecated keys are ignored (RFC 9530 §2 lets a recipient ignore any digest).
    /// </summary>
    /// <param name="detail">For a mismatch, which algorithm and both values; null otherwise.</param>
    public static DigestVerdict Check(StringValues field, ComputedDigests computed, out string? detail)
    {
        ArgumentNullException.ThrowIfNull(computed);
        detail = null;
        if (!DigestFields.TryParse(field, out var digests))
        {
            detail = $"unreadable {DigestFields.ReprDigestHeader}: {field}";
            return DigestVerdict.Malformed;
        }

        var checkedAny = false;
        foreach (var algorithm in computed.Algorithms)
        {
            if (!digests.TryGetValue(algorithm.Name, out var sent))
            {
                continue;
            }

            checkedAny = true;
            if (computed.Verify(algorithm, sent) is { } mismatch)
            {
                detail = $"{algorithm.Name} of the bytes is {Convert.ToHexStringLower(mismatch.Actual.Span)}, the server's is {Convert.ToHexStringLower(mismatch.Expected.Span)}";
                return DigestVerdict.Mismatch;
            }
        }

        return checkedAny ? DigestVerdict.Verified : DigestVerdict.Absent;
    }
}
