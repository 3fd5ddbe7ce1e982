using System.Buffers;
using Freight.Digests;
using Freight.Downloads;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Results;

/// <summary>The parts of a Want-Repr-Digest answer (RFC 9530 §4) that a stored object and a plain file share.</summary>
internal static class ReprDigestAnswer
{
    public static bool Requested(HttpRequest request) => request.Headers[WantDigest.WantReprDigestHeader].Count > 0;

    /// <summary>The algorithm to answer with; null for an unreadable or unsatisfiable preference, which is ignored (a hint, §4).</summary>
    public static DigestAlgorithm? PreferredAlgorithm(HttpRequest request) =>
        WantDigest.TryParse(request.Headers[WantDigest.WantReprDigestHeader], out var preferences)
            ? WantDigest.SelectPreferred(preferences)
            : null;

    /// <summary>Whether the answer will carry the representation (not a 304 or 412), so a digest is worth computing.</summary>
    public static bool AnswersWithBody(HttpRequest request, FileRepresentation representation) =>
        Preconditions.Evaluate(request, representation.EntityTag, representation.LastModified) == PreconditionOutcome.Proceed;

    public static void Write(HttpResponse response, DigestAlgorithm algorithm, byte[] digest) =>
        response.Headers[DigestFields.ReprDigestHeader] = DigestFields.Format(algorithm, digest);

    public static byte[] Of(ReadOnlySpan<byte> content, DigestAlgorithm algorithm)
    {
        using var digests = new StreamingDigests([algorithm]);
        digests.Append(content);
        return digests.Complete().GetDigest(algorithm);
    }

    /// <summary>
    /// The digest of exactly <paramref name="length"/> bytes read by <paramref name="read"/> (into a buffer, from an
    /// offset); a source that ends early fails the request rather than pass a digest of fewer bytes as the whole's.
    /// </summary>
    public static async Task<byte[]> ComputeAsync(long length, Func<Memory<byte>, long, CancellationToken, ValueTask<int>> read, DigestAlgorithm algorithm, string name, CancellationToken cancellationToken)
    {
        using var digests = new StreamingDigests([algorithm]);
        var buffer = ArrayPool<byte>.Shared.Rent(1024 * 1024);
        try
        {
            for (var offset = 0L; offset < length;)
            {
                var count = await read(buffer.AsMemory(0, (int)Math.Min(buffer.Length, length - offset)), offset, cancellationToken);
                if (count == 0)
                {
                    throw new EndOfStreamException($"'{name}' ended {length - offset} bytes before its length.");
                }

                digests.Append(buffer.AsSpan(0, count));
                offset += count;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        return digests.Complete().GetDigest(algorithm);
    }
}
