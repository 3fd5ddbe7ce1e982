using Freight.Bench.Results;
using Freight.Digests;
using Microsoft.Extensions.Primitives;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// One response body's hashes, computed as it streams in: SHA-256 when the run expects one
/// (<see cref="LoadOptions.ExpectedSha256"/>), and the sha-256 / sha-512 the server's Content-Digest or
/// Repr-Digest names (RFC 9530) when the run checks them. Created only for responses that need a hash,
/// so a run that asks for none pays nothing.
/// </summary>
internal sealed class ResponseDigests : IDisposable
{
    private readonly byte[]? _expectedSha256;
    private readonly List<(DigestAlgorithm Algorithm, byte[] Digest, string Field)> _sent;
    private readonly StreamingDigests _digests;

    private ResponseDigests(byte[]? expectedSha256, List<(DigestAlgorithm Algorithm, byte[] Digest, string Field)> sent)
    {
        _expectedSha256 = expectedSha256;
        _sent = sent;
        var algorithms = new List<DigestAlgorithm>(sent.Count + 1);
        if (expectedSha256 is not null)
        {
            algorithms.Add(DigestAlgorithm.Sha256);
        }

        foreach (var (algorithm, _, _) in sent)
        {
            algorithms.Add(algorithm);
        }

        _digests = new StreamingDigests(algorithms);
    }

    /// <summary>
    /// The hashes <paramref name="response"/>'s body needs, or null when it needs none: its status is not one
    /// whose body the run compares, or the run expects no hash and the server sent no digest field to check.
    /// An unreadable digest field is ignored, as RFC 9530 §2 lets a recipient ignore any digest.
    /// </summary>
    public static ResponseDigests? Start(ResponseExpectation? expectation, int statusCode, HttpResponseMessage response)
    {
        if (expectation is null)
        {
            return null;
        }

        string? Field(string name) =>
            response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values)
                ? string.Join(", ", values)
                : null;

        return expectation.ChecksDigestFields
            ? Start(expectation, statusCode, Field(DigestFields.ContentDigestHeader), Field(DigestFields.ReprDigestHeader), response.Content.Headers.ContentEncoding.Count > 0)
            : Start(expectation, statusCode, null, null, false);
    }

    /// <summary>As <see cref="Start(ResponseExpectation?, int, HttpResponseMessage)"/>, from the digest fields' values as received.</summary>
    public static ResponseDigests? Start(ResponseExpectation? expectation, int statusCode, string? contentDigest, string? reprDigest, bool contentEncoded)
    {
        if (expectation is null)
        {
            return null;
        }

        var expected = expectation.Sha256 is not null && expectation.ComparesBodyOf(statusCode) ? expectation.Sha256 : null;
        List<(DigestAlgorithm Algorithm, byte[] Digest, string Field)>? sent = null;
        if (expectation.ChecksDigestFields)
        {
            AddField(DigestFields.ContentDigestHeader, contentDigest, ref sent);

            // Repr-Digest is of the whole selected representation: the received bytes only in a 200 without content coding.
            if (statusCode == 200 && !contentEncoded)
            {
                AddField(DigestFields.ReprDigestHeader, reprDigest, ref sent);
            }
        }

        return expected is null && sent is null ? null : new ResponseDigests(expected, sent ?? []);
    }

    public void Add(ReadOnlySpan<byte> received) => _digests.Append(received);

    /// <summary>Null when every expected digest equals the received body's; otherwise the first that differs, in words.</summary>
    public FailureReason? Mismatch()
    {
        var computed = _digests.Complete();
        if (_expectedSha256 is not null)
        {
            var sha256 = computed.GetDigest(DigestAlgorithm.Sha256);
            if (!sha256.AsSpan().SequenceEqual(_expectedSha256))
            {
                return FailureReasons.DigestMismatch("SHA-256", sha256, "expected", _expectedSha256);
            }
        }

        foreach (var (algorithm, digest, field) in _sent)
        {
            var actual = computed.GetDigest(algorithm);
            if (!actual.AsSpan().SequenceEqual(digest))
            {
                return FailureReasons.DigestMismatch(algorithm.Name, actual, $"its {field} says", digest);
            }
        }

        return null;
    }

    public void Dispose() => _digests.Dispose();

    private static void AddField(string name, string? field, ref List<(DigestAlgorithm Algorithm, byte[] Digest, string Field)>? sent)
    {
        if (field is null || !DigestFields.TryParse(new StringValues(field), out var digests))
        {
            return;
        }

        foreach (var algorithm in DigestFields.VerifiableAlgorithms(digests))
        {
            (sent ??= []).Add((algorithm, digests[algorithm.Name], name));
        }
    }
}
