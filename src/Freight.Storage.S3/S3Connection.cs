using System.Net;
using Amazon;
using Amazon.Runtime;
using Amazon.S3;
using Amazon.S3.Model;

namespace Freight.Storage.S3;

/// <summary>
/// One bucket on one S3 server, for the S3 stores: the AWS SDK for control requests (multipart start and
/// completion, HEAD, copy, list, delete) and a plain HttpClient for bodies, sent to presigned URLs. Presigned
/// requests carry UNSIGNED-PAYLOAD, so bodies stream straight from the request pipe without the SHA-256 of
/// every byte the SDK's own uploads compute over plain HTTP (it refuses unsigned payloads there).
/// </summary>
public sealed class S3Connection : IDisposable
{
    // Presigned URLs live only as long as one request needs them; an hour covers a slow 5 GiB part.
    private static readonly TimeSpan PresignedLifetime = TimeSpan.FromHours(1);

    /// <summary>A client of the server and bucket <paramref name="options"/> name (validated here).</summary>
    public S3Connection(S3StoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var errors = new List<string>();
        options.Validate(errors);
        if (errors.Count > 0)
        {
            throw new ArgumentException(string.Join(" ", errors), nameof(options));
        }

        Options = options;
        Client = new AmazonS3Client(Credentials(options), CreateConfig(options));
        Http = new HttpClient(new SocketsHttpHandler
        {
            // Parts go up in parallel and GETs stream concurrently: no per-server cap beyond the OS's.
            MaxConnectionsPerServer = int.MaxValue,
            AutomaticDecompression = DecompressionMethods.None,
            UseCookies = false,
            PooledConnectionIdleTimeout = TimeSpan.FromSeconds(30),
        })
        {
            Timeout = Timeout.InfiniteTimeSpan,
        };
        Protocol = string.IsNullOrEmpty(options.Endpoint) || options.Endpoint.StartsWith("https:", StringComparison.OrdinalIgnoreCase) ? Amazon.S3.Protocol.HTTPS : Amazon.S3.Protocol.HTTP;
    }

    /// <summary>The options this connection was made with.</summary>
    public S3StoreOptions Options { get; }

    /// <summary>The AWS SDK client.</summary>
    public AmazonS3Client Client { get; }

    /// <summary>The HTTP client for the requests the SDK makes slowly (streamed uploads of parts, ranged reads).</summary>
    public HttpClient Http { get; }

    /// <summary>The bucket.</summary>
    public string Bucket => Options.Bucket;

    private Protocol Protocol { get; }

    /// <summary>
    /// What the SDK (v4) needs: path-style addresses unless told otherwise, the region to sign for, and checksums
    /// only when an operation requires them — since 4.0 the SDK otherwise sends every upload aws-chunked with a
    /// CRC32 trailer, which servers such as Ceph Pacific's RGW reject (400 XAmzContentSHA256Mismatch).
    /// </summary>
    public static AmazonS3Config CreateConfig(S3StoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var config = new AmazonS3Config
        {
            ForcePathStyle = options.PathStyle,
            RequestChecksumCalculation = RequestChecksumCalculation.WHEN_REQUIRED,
            ResponseChecksumValidation = ResponseChecksumValidation.WHEN_REQUIRED,
        };
        if (string.IsNullOrEmpty(options.Endpoint))
        {
            config.RegionEndpoint = RegionEndpoint.GetBySystemName(options.Region);
        }
        else
        {
            config.ServiceURL = options.Endpoint;
            config.AuthenticationRegion = options.Region;
        }

        return config;
    }

    /// <summary>The keys of <paramref name="options"/>, else those of AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.</summary>
    public static AWSCredentials Credentials(S3StoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var access = options.AccessKey is { Length: > 0 } a ? a : Environment.GetEnvironmentVariable("AWS_ACCESS_KEY_ID");
        var secret = options.SecretKey is { Length: > 0 } s ? s : Environment.GetEnvironmentVariable("AWS_SECRET_ACCESS_KEY");
        if (string.IsNullOrEmpty(access) || string.IsNullOrEmpty(secret))
        {
            throw new ArgumentException("The S3 store needs an access key and a secret key (Freight:S3:AccessKey/SecretKey or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY).", nameof(options));
        }

        return new BasicAWSCredentials(access, secret);
    }

    /// <summary>The bucket key of a store key.</summary>
    public string ObjectKey(string key) => Options.Prefix + key;

    /// <summary>The bucket key of one of the store's own objects (never a file key: file keys cannot start with <c>.freight</c>).</summary>
    public string ReservedKey(string name) => Options.Prefix + ".freight/" + name;

    /// <summary>A URL that PUTs (or GETs) <paramref name="objectKey"/>, or uploads one part when <paramref name="uploadId"/> is given.</summary>
    public Uri Presign(HttpVerb verb, string objectKey, string? uploadId = null, int partNumber = 0, string? contentType = null, IReadOnlyDictionary<string, string>? metadata = null)
    {
        var request = new GetPreSignedUrlRequest
        {
            BucketName = Bucket,
            Key = objectKey,
            Verb = verb,
            Protocol = Protocol,
            Expires = DateTime.UtcNow + PresignedLifetime,
        };
        if (uploadId is not null)
        {
            request.UploadId = uploadId;
            request.PartNumber = partNumber;
        }

        if (contentType is not null)
        {
            request.ContentType = contentType;
        }

        if (metadata is not null)
        {
            foreach (var (name, value) in metadata)
            {
                request.Metadata[name] = value;
            }
        }

        return new Uri(Client.GetPreSignedURL(request));
    }

    /// <summary>HEAD of an object, or null when there is none.</summary>
    public async ValueTask<GetObjectMetadataResponse?> HeadAsync(string objectKey, CancellationToken cancellationToken)
    {
        try
        {
            return await Client.GetObjectMetadataAsync(new GetObjectMetadataRequest { BucketName = Bucket, Key = objectKey }, cancellationToken);
        }
        catch (AmazonS3Exception missing) when (missing.StatusCode == HttpStatusCode.NotFound)
        {
            return null;
        }
    }

    /// <summary>
    /// Whether the bucket exists and the keys may use it (HeadBucket): null when they may, else why not. An S3
    /// server that cannot be reached, or fails, gives no answer: that throws, for the caller to decide.
    /// </summary>
    public async Task<string?> BucketProblemAsync(CancellationToken cancellationToken)
    {
        try
        {
            await Client.HeadBucketAsync(new HeadBucketRequest { BucketName = Bucket }, cancellationToken);
            return null;
        }
        catch (AmazonS3Exception refused) when (refused.StatusCode is HttpStatusCode.NotFound)
        {
            return $"the bucket '{Bucket}' does not exist on {Where}";
        }
        catch (AmazonS3Exception refused) when (refused.StatusCode is HttpStatusCode.Forbidden or HttpStatusCode.BadRequest)
        {
            return $"{Where} refuses these keys access to the bucket '{Bucket}' ({(int)refused.StatusCode} {refused.ErrorCode})";
        }
    }

    private string Where => string.IsNullOrEmpty(Options.Endpoint) ? $"AWS S3 ({Options.Region})" : Options.Endpoint;

    /// <summary>Deletes the object <paramref name="objectKey"/> of the bucket (no error when it is gone).</summary>
    public async ValueTask DeleteObjectAsync(string objectKey, CancellationToken cancellationToken) =>
        await Client.DeleteObjectAsync(new DeleteObjectRequest { BucketName = Bucket, Key = objectKey }, cancellationToken);

    /// <inheritdoc />
    public void Dispose()
    {
        Http.Dispose();
        Client.Dispose();
    }
}
