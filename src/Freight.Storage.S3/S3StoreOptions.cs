namespace Freight.Storage.S3;

/// <summary>
/// Where and how the S3 store talks to an S3-compatible server (<c>Freight:S3</c> in <c>freight serve</c>):
/// AWS S3, Ceph's RADOS Gateway, MinIO and the like.
/// </summary>
public sealed class S3StoreOptions
{
    /// <summary>The configuration section <c>AddFreightS3Store</c> binds when none is named.</summary>
    public const string SectionName = "Freight:S3";

    /// <summary>S3's smallest part (every part but the last): 5 MiB.</summary>
    public const int MinPartBytes = 5 * 1024 * 1024;

    /// <summary>The server's base URL, e.g. <c>http://127.0.0.1:7480</c>; empty: AWS S3 of <see cref="Region"/>.</summary>
    public string Endpoint { get; set; } = "";

    /// <summary>The region requests are signed for. us-east-1 suits RGW and MinIO's defaults.</summary>
    public string Region { get; set; } = "us-east-1";

    /// <summary>The bucket that holds the objects (it must exist).</summary>
    public string Bucket { get; set; } = "";

    /// <summary>Access key; empty: the AWS_ACCESS_KEY_ID environment variable.</summary>
    public string AccessKey { get; set; } = "";

    /// <summary>Secret key; empty: the AWS_SECRET_ACCESS_KEY environment variable.</summary>
    public string SecretKey { get; set; } = "";

    /// <summary>Path-style addresses (<c>http://host/bucket/key</c>): what RGW and MinIO need without wildcard DNS.</summary>
    public bool PathStyle { get; set; } = true;

    /// <summary>
    /// Size of each part of a multipart upload (at least 5 MiB, S3's floor). Also the largest object written
    /// with a single PutObject: the writer buffers one part before it knows which it needs. 16 MiB: 8, 16 and
    /// 32 MiB measured alike for 1 GiB PUTs to RGW (docs/results/2026-11-22-files-s3.md); 16 halves the requests of 8.
    /// </summary>
    public int PartBytes { get; set; } = 16 * 1024 * 1024;

    /// <summary>
    /// Parts uploaded at once per write (a PUT or a tus PATCH); memory per write is at most (this + 1) ×
    /// <see cref="PartBytes"/>. 4: not tuned — enough that the request never waits on one part's round trip,
    /// 80 MiB per write at the default size.
    /// </summary>
    public int PartsInFlight { get; set; } = 4;

    /// <summary>
    /// Keys live under this prefix in the bucket (e.g. <c>files/</c>), so several stores can share one bucket;
    /// empty: the bucket's root. The store's own objects (staged writes, tus state) sit under <c>{Prefix}.freight/</c>,
    /// a name no file key may start with.
    /// </summary>
    public string Prefix { get; set; } = "";

    /// <summary>Adds every problem to <paramref name="errors"/>, each naming its key under <paramref name="section"/>.</summary>
    internal void Validate(List<string> errors, string section = SectionName)
    {
        ArgumentNullException.ThrowIfNull(errors);
        if (string.IsNullOrWhiteSpace(Bucket))
        {
            errors.Add($"{section}:Bucket is empty: name the bucket the S3 store keeps files in.");
        }

        if (!string.IsNullOrEmpty(Endpoint) && !(Uri.TryCreate(Endpoint, UriKind.Absolute, out var uri) && uri.Scheme is "http" or "https"))
        {
            errors.Add($"{section}:Endpoint is '{Endpoint}': give an http:// or https:// URL, e.g. http://127.0.0.1:7480.");
        }

        if (string.IsNullOrEmpty(AccessKey) != string.IsNullOrEmpty(SecretKey))
        {
            errors.Add($"{section}: give both AccessKey and SecretKey, or neither (then AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).");
        }
        else if (string.IsNullOrEmpty(AccessKey) && (string.IsNullOrEmpty(Environment.GetEnvironmentVariable("AWS_ACCESS_KEY_ID")) || string.IsNullOrEmpty(Environment.GetEnvironmentVariable("AWS_SECRET_ACCESS_KEY"))))
        {
            errors.Add($"{section}:AccessKey and SecretKey are empty and so is AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY: the S3 store needs keys.");
        }

        if (PartBytes < MinPartBytes)
        {
            errors.Add($"{section}:PartBytes is {PartBytes}: S3 parts are at least {MinPartBytes} bytes (5 MiB).");
        }

        if (Prefix.Length > 0 && (!Prefix.EndsWith('/') || Prefix.StartsWith('/')))
        {
            errors.Add($"{section}:Prefix is '{Prefix}': use a folder like files/ (no leading /, a trailing /) or leave it empty.");
        }

        if (PartsInFlight < 1)
        {
            errors.Add($"{section}:PartsInFlight is {PartsInFlight}: it must be at least 1.");
        }
    }
}
