using System.Security.Cryptography;
using Amazon.S3;
using Freight.Bench.Suites.Files;

namespace Freight.Bench.Peers;

/// <summary>
/// The S3 peer of <c>--store s3</c> (<c>peer/s3-direct-put</c>, <c>peer/s3-direct-get</c>): the bench's own
/// HttpClient talking to the S3 server directly, through presigned URLs, with the same request bodies and the same
/// hashing reader as the files API's rows (<see cref="FilesSuiteRunner.PutVerifiedAsync"/>,
/// <see cref="FilesSuiteRunner.GetVerifiedAsync"/>). Presigned requests carry UNSIGNED-PAYLOAD, so neither side
/// hashes the body for the signature — the same terms the files API's S3 store gets. A PUT is verified by the
/// server's ETag (for a single PUT, the quoted lower-case hex MD5 of the body), a GET by hashing the body as it arrives.
/// </summary>
public sealed class S3Direct(RgwServer rgw, string bucket, HttpClient client)
{
    // One URL per object and verb for the whole run: presigning is cheap, but it need not happen between transfers.
    private readonly Dictionary<(HttpVerb Verb, string Key), Uri> _urls = [];

    public string Bucket => bucket;

    /// <summary>
    /// The ETag S3 answers a single PUT of <paramref name="payload"/> with: its MD5 as quoted lower-case hex
    /// (RFC 9110 §8.8.3's strong entity tag). Computed once per payload, not per transfer.
    /// </summary>
    public static string ETagOf(ReadOnlySpan<byte> payload)
    {
#pragma warning disable CA5351 // MD5 is what S3 reports as a single PUT's ETag: compared for verification, not used for security.
        var md5 = MD5.HashData(payload);
#pragma warning restore CA5351
        return $"\"{Convert.ToHexStringLower(md5)}\"";
    }

    /// <summary>Creates the bucket (once per run, before any transfer).</summary>
    public Task CreateBucketAsync(CancellationToken cancellationToken) => rgw.CreateBucketAsync(bucket, cancellationToken);

    /// <summary>One timed PUT of <paramref name="payload"/> to <paramref name="key"/>, verified by the answer's ETag (<see cref="ETagOf"/>).</summary>
    public Task<double> PutAsync(string key, byte[] payload, string expectedETag, CancellationToken cancellationToken) =>
        FilesSuiteRunner.PutVerifiedAsync(client, Url(HttpVerb.PUT, key), payload, expectedETag, $"PUT s3://{bucket}/{key}", cancellationToken);

    /// <summary>One timed GET of <paramref name="key"/>, verified by its length and XXH3-128 as the body arrives.</summary>
    public Task<(double Seconds, double? FirstByte)> GetAsync(string key, long length, UInt128 hash, CancellationToken cancellationToken) =>
        FilesSuiteRunner.GetVerifiedAsync(client, Url(HttpVerb.GET, key), length, hash, $"GET s3://{bucket}/{key}", cancellationToken);

    public Task DeleteAsync(string key, CancellationToken cancellationToken) => rgw.DeleteObjectAsync(bucket, key, cancellationToken);

    private Uri Url(HttpVerb verb, string key)
    {
        if (!_urls.TryGetValue((verb, key), out var url))
        {
            url = rgw.Presign(verb, bucket, key);
            _urls[(verb, key)] = url;
        }

        return url;
    }
}
