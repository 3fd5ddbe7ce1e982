using Amazon.S3;
using Amazon.S3.Model;

namespace Freight.Testing.Rgw;

/// <summary>
/// A bucket of its own for one fixture or test, on an <see cref="RgwProcess"/>: created empty, emptied and deleted
/// on dispose (its space freed at once), and the <c>freight serve</c> arguments that select the S3 store on it.
/// </summary>
public sealed class RgwBucket : IAsyncDisposable
{
    private RgwBucket(RgwProcess rgw, string name)
    {
        Rgw = rgw;
        Name = name;
    }

    public RgwProcess Rgw { get; }

    public string Name { get; }

    /// <summary>The RGW's shared client.</summary>
    public AmazonS3Client Client => Rgw.Client;

    /// <summary>A new bucket named after <paramref name="hint"/> (see <see cref="RgwProcess.CreateBucketAsync"/>).</summary>
    public static async Task<RgwBucket> CreateAsync(RgwProcess rgw, string hint) => new(rgw, await rgw.CreateBucketAsync(hint));

    /// <summary>The S3 store on this bucket: <c>--Freight:Files:Store S3</c>, the endpoint, the bucket and the keys.</summary>
    public string[] FreightArguments() =>
    [
        "--Freight:Files:Store", "S3",
        "--Freight:S3:Endpoint", Rgw.Endpoint.GetLeftPart(UriPartial.Authority),
        "--Freight:S3:Bucket", Name,
        "--Freight:S3:AccessKey", RgwProcess.AccessKey,
        "--Freight:S3:SecretKey", RgwProcess.SecretKey,
    ];

    /// <summary>Every key in the bucket (under <paramref name="prefix"/> when given), in key order.</summary>
    public Task<IReadOnlyList<string>> KeysAsync(string? prefix = null) => KeysAsync(Client, Name, prefix);

    /// <summary>The multipart uploads begun and neither completed nor aborted.</summary>
    public Task<IReadOnlyList<MultipartUpload>> MultipartUploadsAsync() => MultipartUploadsAsync(Client, Name);

    public async ValueTask DisposeAsync() => await Rgw.DeleteBucketAsync(Name);

    internal static async Task<IReadOnlyList<string>> KeysAsync(AmazonS3Client client, string bucket, string? prefix)
    {
        var keys = new List<string>();
        string? token = null;
        do
        {
            var page = await client.ListObjectsV2Async(new ListObjectsV2Request { BucketName = bucket, Prefix = prefix, ContinuationToken = token });
            keys.AddRange((page.S3Objects ?? []).Select(o => o.Key));
            token = page.IsTruncated == true ? page.NextContinuationToken : null;
        }
        while (token is not null);

        return keys;
    }

    internal static async Task<IReadOnlyList<MultipartUpload>> MultipartUploadsAsync(AmazonS3Client client, string bucket)
    {
        var uploads = new List<MultipartUpload>();
        string? keyMarker = null;
        string? uploadIdMarker = null;
        while (true)
        {
            var page = await client.ListMultipartUploadsAsync(new ListMultipartUploadsRequest { BucketName = bucket, KeyMarker = keyMarker, UploadIdMarker = uploadIdMarker });
            uploads.AddRange(page.MultipartUploads ?? []);
            if (page.IsTruncated != true)
            {
                return uploads;
            }

            (keyMarker, uploadIdMarker) = (page.NextKeyMarker, page.NextUploadIdMarker);
        }
    }
}
