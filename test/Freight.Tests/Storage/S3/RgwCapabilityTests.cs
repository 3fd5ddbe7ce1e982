using System.Net;
using System.Security.Cryptography;
using Amazon.S3;
using Amazon.S3.Model;

namespace Freight.Tests.Storage.S3;

/// <summary>
/// What the S3 store may rely on, observed on the real RADOS Gateway (Ceph Pacific 16.2, Debian 12) through
/// the AWS SDK v4: each test pins one behaviour, including the ones RGW does not have, so a design that
/// assumes otherwise fails here first.
/// </summary>
[Collection(RgwCollection.Name)]
public sealed class RgwCapabilityTests(RgwServer rgw) : IAsyncLifetime
{
    private const int MiB = 1024 * 1024;

    private string _bucket = null!;

    private AmazonS3Client S3 => rgw.Client;

    public async Task InitializeAsync() => _bucket = await rgw.BucketForAsync(GetType());

    public Task DisposeAsync() => Task.CompletedTask;

    [Fact]
    public async Task PutObject_MetadataAndContentType_GetReturnsBytesMetadataAndType()
    {
        var bytes = Payload(100_000, seed: 1);
        var put = new PutObjectRequest { BucketName = _bucket, Key = "put/round-trip", InputStream = new MemoryStream(bytes), ContentType = "application/x-freight" };
        put.Metadata["sha256"] = Convert.ToHexStringLower(SHA256.HashData(bytes));
        put.Metadata["created-by"] = "Freight Tests";
        await S3.PutObjectAsync(put);

        using var get = await S3.GetObjectAsync(_bucket, "put/round-trip");

        Assert.Equal(HttpStatusCode.OK, get.HttpStatusCode);
        Assert.Equal(bytes, await ReadAllAsync(get));
        Assert.Equal("application/x-freight", get.Headers.ContentType);
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(bytes)), get.Metadata["sha256"]);
        Assert.Equal("Freight Tests", get.Metadata["created-by"]);
    }

    [Fact]
    public async Task GetObject_ByteRange_Returns206WithExactBytes()
    {
        var bytes = Payload(300_000, seed: 2);
        await PutAsync("range/object", bytes);

        using var get = await S3.GetObjectAsync(new GetObjectRequest { BucketName = _bucket, Key = "range/object", ByteRange = new ByteRange(1000, 200_999) });

        Assert.Equal(HttpStatusCode.PartialContent, get.HttpStatusCode);
        Assert.Equal("bytes 1000-200999/300000", get.ContentRange);
        Assert.Equal(bytes.AsSpan(1000, 200_000).ToArray(), await ReadAllAsync(get));
    }

    [Fact]
    public async Task HeadObject_SinglePut_ETagIsQuotedMd5WithLengthAndMetadata()
    {
        var bytes = Payload(12_345, seed: 3);
        var put = new PutObjectRequest { BucketName = _bucket, Key = "head/object", InputStream = new MemoryStream(bytes), ContentType = "text/plain" };
        put.Metadata["digest"] = "abc";
        var putResponse = await S3.PutObjectAsync(put);

        var head = await S3.GetObjectMetadataAsync(_bucket, "head/object");

        var md5 = $"\"{Convert.ToHexStringLower(MD5.HashData(bytes))}\"";
        Assert.Equal(md5, putResponse.ETag);
        Assert.Equal(md5, head.ETag);
        Assert.Equal(12_345, head.ContentLength);
        Assert.Equal("text/plain", head.Headers.ContentType);
        Assert.Equal("abc", head.Metadata["digest"]);
        Assert.NotNull(head.LastModified);
    }

    [Fact]
    public async Task HeadObject_MissingKey_Throws404()
    {
        var error = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.GetObjectMetadataAsync(_bucket, "head/missing"));

        Assert.Equal(HttpStatusCode.NotFound, error.StatusCode);
    }

    [Fact]
    public async Task MultipartUpload_PartsUploadedInParallel_CompleteJoinsThemInPartOrder()
    {
        // 5 MiB, 5 MiB and a smaller last part: every part but the last must be at least 5 MiB.
        var bytes = Payload((10 * MiB) + 700_000, seed: 4);
        int[] sizes = [5 * MiB, 5 * MiB, 700_000];
        var init = await S3.InitiateMultipartUploadAsync(new InitiateMultipartUploadRequest { BucketName = _bucket, Key = "multipart/object", ContentType = "application/octet-stream" });

        var parts = await Task.WhenAll(sizes.Select((size, i) => UploadPartAsync("multipart/object", init.UploadId, i + 1, bytes.AsMemory(i * 5 * MiB, size))));
        var complete = await S3.CompleteMultipartUploadAsync(new CompleteMultipartUploadRequest
        {
            BucketName = _bucket,
            Key = "multipart/object",
            UploadId = init.UploadId,
            PartETags = [.. parts],
        });

        using var get = await S3.GetObjectAsync(_bucket, "multipart/object");
        Assert.Equal(bytes, await ReadAllAsync(get));
        // A multipart ETag is the MD5 of the parts' MD5s with "-<part count>": not a content hash the store can
        // compare with one computed over the bytes. The SDK reads an empty ETag from RGW's completion response
        // (observed, not investigated further): take it from a HEAD after completing.
        Assert.Equal($"\"{MultipartETag(bytes, sizes)}-3\"", get.ETag);
        Assert.Equal("", complete.ETag);
    }

    [Fact]
    public async Task CompleteMultipartUpload_NonLastPartUnder5MiB_RejectedAsEntityTooSmall()
    {
        var bytes = Payload(2 * MiB, seed: 5);
        var init = await S3.InitiateMultipartUploadAsync(_bucket, "multipart/too-small");
        var first = await UploadPartAsync("multipart/too-small", init.UploadId, 1, bytes.AsMemory(0, MiB));
        var second = await UploadPartAsync("multipart/too-small", init.UploadId, 2, bytes.AsMemory(MiB, MiB));

        var error = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.CompleteMultipartUploadAsync(new CompleteMultipartUploadRequest
        {
            BucketName = _bucket,
            Key = "multipart/too-small",
            UploadId = init.UploadId,
            PartETags = [first, second],
        }));

        Assert.Equal("EntityTooSmall", error.ErrorCode);
        await S3.AbortMultipartUploadAsync(_bucket, "multipart/too-small", init.UploadId);
    }

    [Fact]
    public async Task MultipartUpload_NotCompleted_ObjectInvisibleButUploadAndPartsListed()
    {
        var bytes = Payload(5 * MiB + 10, seed: 6);
        var init = await S3.InitiateMultipartUploadAsync(_bucket, "pending/object");
        var part1 = await UploadPartAsync("pending/object", init.UploadId, 1, bytes.AsMemory(0, 5 * MiB));
        var part2 = await UploadPartAsync("pending/object", init.UploadId, 2, bytes.AsMemory(5 * MiB, 10));

        var get = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.GetObjectAsync(_bucket, "pending/object"));
        var uploads = await S3.ListMultipartUploadsAsync(new ListMultipartUploadsRequest { BucketName = _bucket, Prefix = "pending/" });
        var listed = await S3.ListPartsAsync(new ListPartsRequest { BucketName = _bucket, Key = "pending/object", UploadId = init.UploadId });

        Assert.Equal(HttpStatusCode.NotFound, get.StatusCode);
        Assert.Equal("NoSuchKey", get.ErrorCode);
        var upload = Assert.Single(uploads.MultipartUploads);
        Assert.Equal(("pending/object", init.UploadId), (upload.Key, upload.UploadId));
        // The parts a resumable upload has so far can be read back from the store: number, size and ETag.
        Assert.Equal(
            [(1, 5L * MiB, part1.ETag), (2, 10L, part2.ETag)],
            listed.Parts.Select(p => (p.PartNumber ?? 0, p.Size ?? 0, p.ETag)).ToArray());
        await S3.AbortMultipartUploadAsync(_bucket, "pending/object", init.UploadId);
    }

    [Fact]
    public async Task AbortMultipartUpload_UploadGoneAndNoObject()
    {
        var init = await S3.InitiateMultipartUploadAsync(_bucket, "aborted/object");
        await UploadPartAsync("aborted/object", init.UploadId, 1, Payload(5 * MiB, seed: 7));

        await S3.AbortMultipartUploadAsync(_bucket, "aborted/object", init.UploadId);

        var uploads = await S3.ListMultipartUploadsAsync(new ListMultipartUploadsRequest { BucketName = _bucket, Prefix = "aborted/" });
        Assert.Empty(uploads.MultipartUploads ?? []);
        var get = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.GetObjectAsync(_bucket, "aborted/object"));
        Assert.Equal(HttpStatusCode.NotFound, get.StatusCode);
        var parts = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.ListPartsAsync(new ListPartsRequest { BucketName = _bucket, Key = "aborted/object", UploadId = init.UploadId }));
        // AWS answers NoSuchUpload; Pacific's RGW answers 404 NoSuchKey: treat any 404 as "upload gone".
        Assert.Equal((HttpStatusCode.NotFound, "NoSuchKey"), (parts.StatusCode, parts.ErrorCode));
    }

    [Fact]
    public async Task ListObjectsV2_PrefixAndMaxKeys_PagesInKeyOrderWithContinuationToken()
    {
        string[] keys = ["list/a", "list/b", "list/c/1", "list/c/2", "list/d"];
        foreach (var key in keys)
        {
            await PutAsync(key, Payload(10, seed: 8));
        }

        await PutAsync("listing-outside", Payload(10, seed: 8));

        var pages = new List<string[]>();
        string? token = null;
        do
        {
            var page = await S3.ListObjectsV2Async(new ListObjectsV2Request { BucketName = _bucket, Prefix = "list/", MaxKeys = 2, ContinuationToken = token });
            pages.Add([.. (page.S3Objects ?? []).Select(o => o.Key)]);
            Assert.True(page.S3Objects is not { Count: > 0 } || page.S3Objects.All(o => o.Size == 10));
            token = page.IsTruncated == true ? page.NextContinuationToken : null;
        }
        while (token is not null);

        Assert.Equal([["list/a", "list/b"], ["list/c/1", "list/c/2"], ["list/d"]], pages);
    }

    [Fact]
    public async Task DeleteObject_ExistingThenMissing_BothSucceedAndObjectIsGone()
    {
        await PutAsync("delete/object", Payload(10, seed: 9));

        var first = await S3.DeleteObjectAsync(_bucket, "delete/object");
        var second = await S3.DeleteObjectAsync(_bucket, "delete/object");

        // S3 deletes are idempotent: a missing key is 204 too, so "was there one" needs a HEAD first.
        Assert.Equal(HttpStatusCode.NoContent, first.HttpStatusCode);
        Assert.Equal(HttpStatusCode.NoContent, second.HttpStatusCode);
        var get = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.GetObjectAsync(_bucket, "delete/object"));
        Assert.Equal(HttpStatusCode.NotFound, get.StatusCode);
    }

    [Fact]
    public async Task CopyObject_ResultLastModified_IsTheNewObjectsOwnTime()
    {
        // The S3 store answers a multipart commit with the copy result's time instead of a HEAD after it.
        await S3.PutObjectAsync(new PutObjectRequest { BucketName = _bucket, Key = "dated/source", ContentBody = "x" });
        var source = await S3.GetObjectMetadataAsync(_bucket, "dated/source");
        await Task.Delay(TimeSpan.FromSeconds(1.2));

        var copied = await S3.CopyObjectAsync(new CopyObjectRequest { SourceBucket = _bucket, SourceKey = "dated/source", DestinationBucket = _bucket, DestinationKey = "dated/copy" });
        var copy = await S3.GetObjectMetadataAsync(_bucket, "dated/copy");

        var reported = DateTimeOffset.Parse(copied.LastModified, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.AssumeUniversal);
        var headSeconds = new DateTimeOffset(DateTime.SpecifyKind(copy.LastModified!.Value.ToUniversalTime(), DateTimeKind.Utc)).ToUnixTimeSeconds();
        Assert.Equal(headSeconds, reported.ToUnixTimeSeconds());
        Assert.True(copy.LastModified > source.LastModified);
    }

    [Fact]
    public async Task CopyObject_OntoItselfWithMetadataReplace_UpdatesMetadataKeepsBytesAndETag()
    {
        var bytes = Payload(50_000, seed: 10);
        var put = new PutObjectRequest { BucketName = _bucket, Key = "copy/object", InputStream = new MemoryStream(bytes), ContentType = "text/plain" };
        put.Metadata["state"] = "old";
        put.Metadata["kept"] = "only if copied";
        var original = await S3.PutObjectAsync(put);

        var copy = new CopyObjectRequest
        {
            SourceBucket = _bucket,
            SourceKey = "copy/object",
            DestinationBucket = _bucket,
            DestinationKey = "copy/object",
            MetadataDirective = S3MetadataDirective.REPLACE,
            ContentType = "application/json",
            ETagToMatch = original.ETag,
        };
        copy.Metadata["state"] = "new";
        await S3.CopyObjectAsync(copy);

        using var get = await S3.GetObjectAsync(_bucket, "copy/object");
        Assert.Equal(bytes, await ReadAllAsync(get));
        Assert.Equal("new", get.Metadata["state"]);
        // REPLACE replaces the whole set: metadata not sent again is gone.
        Assert.DoesNotContain("x-amz-meta-kept", get.Metadata.Keys);
        Assert.Equal("application/json", get.Headers.ContentType);
        Assert.Equal(original.ETag, get.ETag);
    }

    [Fact]
    public async Task CopyObject_StandardCopySourceIfMatchMismatch_IgnoredByRgw()
    {
        // Pacific's RGW reads the copy conditions as x-amz-copy-if-* (its own spelling), not the standard
        // x-amz-copy-source-if-* the SDK sends: the standard header is ignored and the copy goes ahead.
        var put = new PutObjectRequest { BucketName = _bucket, Key = "copy/standard-guard", InputStream = new MemoryStream(Payload(100, seed: 11)) };
        put.Metadata["state"] = "old";
        await S3.PutObjectAsync(put);

        var copy = SelfCopy("copy/standard-guard", "new");
        copy.ETagToMatch = "\"00000000000000000000000000000000\"";
        var outcome = await OutcomeAsync(() => S3.CopyObjectAsync(copy));

        Assert.Equal("ok", outcome);
        var head = await S3.GetObjectMetadataAsync(_bucket, "copy/standard-guard");
        Assert.Equal("new", head.Metadata["state"]);
    }

    [Fact]
    public async Task CopyObject_RgwCopyIfMatchMismatch_Throws412AndLeavesMetadata()
    {
        var put = new PutObjectRequest { BucketName = _bucket, Key = "copy/rgw-guard", InputStream = new MemoryStream(Payload(100, seed: 11)) };
        put.Metadata["state"] = "old";
        await S3.PutObjectAsync(put);

        var copy = SelfCopy("copy/rgw-guard", "new");
        copy.Headers["x-amz-copy-if-match"] = "\"00000000000000000000000000000000\"";
        var error = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.CopyObjectAsync(copy));

        Assert.Equal(HttpStatusCode.PreconditionFailed, error.StatusCode);
        var head = await S3.GetObjectMetadataAsync(_bucket, "copy/rgw-guard");
        Assert.Equal("old", head.Metadata["state"]);
    }

    [Fact]
    public async Task GetObject_IfNoneMatchCurrentETag_Throws304()
    {
        var put = await PutAsync("conditional/none-match", Payload(100, seed: 12));

        var error = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.GetObjectAsync(new GetObjectRequest { BucketName = _bucket, Key = "conditional/none-match", EtagToNotMatch = put.ETag }));

        Assert.Equal(HttpStatusCode.NotModified, error.StatusCode);
    }

    [Fact]
    public async Task GetObject_IfMatchOtherETag_Throws412()
    {
        await PutAsync("conditional/match", Payload(100, seed: 13));

        var error = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.GetObjectAsync(new GetObjectRequest { BucketName = _bucket, Key = "conditional/match", EtagToMatch = "\"00000000000000000000000000000000\"" }));

        Assert.Equal(HttpStatusCode.PreconditionFailed, error.StatusCode);
    }

    [Fact]
    public async Task GetObject_IfMatchCurrentETag_Returns200()
    {
        var put = await PutAsync("conditional/match-ok", Payload(100, seed: 14));

        using var get = await S3.GetObjectAsync(new GetObjectRequest { BucketName = _bucket, Key = "conditional/match-ok", EtagToMatch = put.ETag });

        Assert.Equal(HttpStatusCode.OK, get.HttpStatusCode);
    }

    [Fact]
    public async Task GetObject_IfModifiedSinceAfterLastModified_Throws304()
    {
        await PutAsync("conditional/modified-since", Payload(100, seed: 15));

        var error = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.GetObjectAsync(new GetObjectRequest
        {
            BucketName = _bucket,
            Key = "conditional/modified-since",
            ModifiedSinceDate = DateTime.UtcNow.AddHours(1),
        }));

        Assert.Equal(HttpStatusCode.NotModified, error.StatusCode);
    }

    [Fact]
    public async Task GetObject_IfUnmodifiedSinceBeforeLastModified_Throws412()
    {
        await PutAsync("conditional/unmodified-since", Payload(100, seed: 16));

        var error = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => S3.GetObjectAsync(new GetObjectRequest
        {
            BucketName = _bucket,
            Key = "conditional/unmodified-since",
            UnmodifiedSinceDate = DateTime.UtcNow.AddHours(-1),
        }));

        Assert.Equal(HttpStatusCode.PreconditionFailed, error.StatusCode);
    }

    [Fact]
    // RGW honours If-None-Match and If-Match on PutObject (checked atomically with the write in RADOS):
    // create-only and compare-and-swap single-request writes are safe on RGW.
    public async Task PutObject_IfNoneMatchStarOnExistingKey_Throws412AndKeepsObject()
    {
        var first = Payload(100, seed: 17);
        await PutAsync("conditional-put/none-match", first);
        var second = Payload(100, seed: 18);

        var put = new PutObjectRequest { BucketName = _bucket, Key = "conditional-put/none-match", InputStream = new MemoryStream(second), IfNoneMatch = "*" };
        var outcome = await OutcomeAsync(() => S3.PutObjectAsync(put));

        using var get = await S3.GetObjectAsync(_bucket, "conditional-put/none-match");
        Assert.Equal("412 PreconditionFailed", outcome);
        Assert.Equal(first, await ReadAllAsync(get));
    }

    [Fact]
    public async Task PutObject_IfMatchOtherETag_Throws412AndKeepsObject()
    {
        var first = Payload(100, seed: 19);
        await PutAsync("conditional-put/match", first);
        var second = Payload(100, seed: 20);

        var put = new PutObjectRequest { BucketName = _bucket, Key = "conditional-put/match", InputStream = new MemoryStream(second), IfMatch = "\"00000000000000000000000000000000\"" };
        var outcome = await OutcomeAsync(() => S3.PutObjectAsync(put));

        using var get = await S3.GetObjectAsync(_bucket, "conditional-put/match");
        Assert.Equal("412 PreconditionFailed", outcome);
        Assert.Equal(first, await ReadAllAsync(get));
    }

    [Fact]
    // Pacific's RGW ignores If-None-Match and If-Match on CompleteMultipartUpload: the completion replaces
    // the object whatever the condition. A store must not rely on them for multipart writes.
    public async Task CompleteMultipartUpload_IfNoneMatchStarOnExistingKey_IgnoredAndReplaces()
    {
        await PutAsync("conditional-complete/none-match", Payload(100, seed: 21));
        var second = Payload(1000, seed: 22);
        var init = await S3.InitiateMultipartUploadAsync(_bucket, "conditional-complete/none-match");
        var part = await UploadPartAsync("conditional-complete/none-match", init.UploadId, 1, second);

        var outcome = await OutcomeAsync(() => S3.CompleteMultipartUploadAsync(new CompleteMultipartUploadRequest
        {
            BucketName = _bucket,
            Key = "conditional-complete/none-match",
            UploadId = init.UploadId,
            PartETags = [part],
            IfNoneMatch = "*",
        }));

        using var get = await S3.GetObjectAsync(_bucket, "conditional-complete/none-match");
        Assert.Equal("ok", outcome);
        Assert.Equal(second, await ReadAllAsync(get));
    }

    [Fact]
    public async Task CompleteMultipartUpload_IfMatchOtherETag_IgnoredAndReplaces()
    {
        await PutAsync("conditional-complete/match", Payload(100, seed: 23));
        var second = Payload(1000, seed: 24);
        var init = await S3.InitiateMultipartUploadAsync(_bucket, "conditional-complete/match");
        var part = await UploadPartAsync("conditional-complete/match", init.UploadId, 1, second);

        var outcome = await OutcomeAsync(() => S3.CompleteMultipartUploadAsync(new CompleteMultipartUploadRequest
        {
            BucketName = _bucket,
            Key = "conditional-complete/match",
            UploadId = init.UploadId,
            PartETags = [part],
            IfMatch = "\"00000000000000000000000000000000\"",
        }));

        using var get = await S3.GetObjectAsync(_bucket, "conditional-complete/match");
        Assert.Equal("ok", outcome);
        Assert.Equal(second, await ReadAllAsync(get));
    }

    [Fact]
    public async Task UploadPartCopy_WholeObjectAndByteRange_CompleteConcatenatesThem()
    {
        // tus concatenation: a final upload assembled server-side from earlier uploads without moving bytes.
        var first = Payload(5 * MiB, seed: 25);
        var second = Payload(2 * MiB, seed: 26);
        await PutAsync("concat/first", first);
        await PutAsync("concat/second", second);
        var init = await S3.InitiateMultipartUploadAsync(_bucket, "concat/final");

        var part1 = await S3.CopyPartAsync(new CopyPartRequest
        {
            SourceBucket = _bucket,
            SourceKey = "concat/first",
            DestinationBucket = _bucket,
            DestinationKey = "concat/final",
            UploadId = init.UploadId,
            PartNumber = 1,
        });
        var part2 = await S3.CopyPartAsync(new CopyPartRequest
        {
            SourceBucket = _bucket,
            SourceKey = "concat/second",
            DestinationBucket = _bucket,
            DestinationKey = "concat/final",
            UploadId = init.UploadId,
            PartNumber = 2,
            FirstByte = 1000,
            LastByte = MiB - 1,
        });
        await S3.CompleteMultipartUploadAsync(new CompleteMultipartUploadRequest
        {
            BucketName = _bucket,
            Key = "concat/final",
            UploadId = init.UploadId,
            PartETags = [new PartETag(1, part1.ETag), new PartETag(2, part2.ETag)],
        });

        using var get = await S3.GetObjectAsync(_bucket, "concat/final");
        byte[] expected = [.. first, .. second[1000..MiB]];
        Assert.Equal(expected, await ReadAllAsync(get));
    }

    [Fact]
    public async Task PutObject_SdkDefaultChecksums_RgwRejectsTrailer()
    {
        // The SDK's defaults (WHEN_SUPPORTED) send the body aws-chunked with a CRC32 trailer; Pacific's RGW
        // cannot verify that and rejects it: why RgwServer.CreateConfig says WHEN_REQUIRED.
        var config = rgw.CreateConfig();
        config.RequestChecksumCalculation = Amazon.Runtime.RequestChecksumCalculation.WHEN_SUPPORTED;
        config.ResponseChecksumValidation = Amazon.Runtime.ResponseChecksumValidation.WHEN_SUPPORTED;
        using var client = rgw.CreateClient(config);
        var bytes = Payload(1000, seed: 27);

        var outcome = await OutcomeAsync(() => client.PutObjectAsync(new PutObjectRequest { BucketName = _bucket, Key = "sdk/default-checksums", InputStream = new MemoryStream(bytes) }));

        Assert.Equal("400 XAmzContentSHA256Mismatch", outcome);
    }

    private CopyObjectRequest SelfCopy(string key, string state)
    {
        var copy = new CopyObjectRequest
        {
            SourceBucket = _bucket,
            SourceKey = key,
            DestinationBucket = _bucket,
            DestinationKey = key,
            MetadataDirective = S3MetadataDirective.REPLACE,
        };
        copy.Metadata["state"] = state;
        return copy;
    }

    private async Task<PutObjectResponse> PutAsync(string key, byte[] bytes) =>
        await S3.PutObjectAsync(new PutObjectRequest { BucketName = _bucket, Key = key, InputStream = new MemoryStream(bytes) });

    private async Task<PartETag> UploadPartAsync(string key, string uploadId, int partNumber, ReadOnlyMemory<byte> bytes)
    {
        var response = await S3.UploadPartAsync(new UploadPartRequest
        {
            BucketName = _bucket,
            Key = key,
            UploadId = uploadId,
            PartNumber = partNumber,
            InputStream = new MemoryStream(bytes.ToArray()),
        });
        return new PartETag(partNumber, response.ETag);
    }

    /// <summary>"ok" or the status code and S3 error code the request failed with.</summary>
    private static async Task<string> OutcomeAsync<T>(Func<Task<T>> request)
    {
        try
        {
            await request();
            return "ok";
        }
        catch (AmazonS3Exception e)
        {
            return $"{(int)e.StatusCode} {e.ErrorCode}";
        }
    }

    private static async Task<byte[]> ReadAllAsync(GetObjectResponse response)
    {
        using var buffer = new MemoryStream();
        await response.ResponseStream.CopyToAsync(buffer);
        return buffer.ToArray();
    }

    private static string MultipartETag(byte[] bytes, int[] sizes)
    {
        var md5s = new List<byte>();
        var offset = 0;
        foreach (var size in sizes)
        {
            md5s.AddRange(MD5.HashData(bytes.AsSpan(offset, size)));
            offset += size;
        }

        return Convert.ToHexStringLower(MD5.HashData([.. md5s]));
    }

    private static byte[] Payload(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
