using System.Globalization;
using Amazon.S3.Model;

namespace Freight.Storage.S3;

/// <summary>
/// How an object's <see cref="ObjectInfo"/> travels as S3 user metadata (<c>x-amz-meta-*</c>): our ETag (S3's
/// own ETag of a multipart object is not a content hash, and differs by part size), the content type the
/// client gave (S3 always answers one), and the digests, base64.
/// </summary>
internal static class S3Metadata
{
    public const string ETag = "freight-etag";
    public const string ContentType = "freight-content-type";
    public const string DigestPrefix = "freight-digest-";

    /// <summary>
    /// Unix seconds of the version's own modification time, kept when metadata is rewritten (a digest added by a
    /// self-copy): S3 dates a copy anew, but adding a digest does not modify the representation.
    /// </summary>
    public const string LastModified = "freight-last-modified";

    /// <summary>S3's type for objects stored without one; also what we send when the client gave none.</summary>
    public const string DefaultContentType = "application/octet-stream";

    public static Dictionary<string, string> From(string etag, string? contentType, IReadOnlyDictionary<string, byte[]>? digests)
    {
        var metadata = new Dictionary<string, string>(StringComparer.Ordinal) { [ETag] = etag.Trim('"') };
        if (contentType is not null)
        {
            metadata[ContentType] = contentType;
        }

        foreach (var (algorithm, value) in digests ?? new Dictionary<string, byte[]>())
        {
            metadata[DigestPrefix + algorithm] = Convert.ToBase64String(value);
        }

        return metadata;
    }

    /// <summary>
    /// The info of an object HEAD described. An object some other tool wrote (no <c>freight-etag</c>) is
    /// described by S3's own ETag and content type: a strong validator of that version, though not our hash.
    /// </summary>
    public static ObjectInfo ToInfo(string key, GetObjectMetadataResponse head)
    {
        var metadata = head.Metadata;
        var digests = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        string? etag = null;
        string? contentType = null;
        DateTimeOffset? kept = null;
        foreach (var name in metadata.Keys)
        {
            var bare = name.StartsWith("x-amz-meta-", StringComparison.OrdinalIgnoreCase) ? name["x-amz-meta-".Length..] : name;
            var value = metadata[name];
            if (bare.Equals(ETag, StringComparison.OrdinalIgnoreCase))
            {
                etag = "\"" + value + "\"";
            }
            else if (bare.Equals(ContentType, StringComparison.OrdinalIgnoreCase))
            {
                contentType = value;
            }
            else if (bare.Equals(LastModified, StringComparison.OrdinalIgnoreCase) && long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out var seconds))
            {
                kept = DateTimeOffset.FromUnixTimeSeconds(seconds);
            }
            else if (bare.StartsWith(DigestPrefix, StringComparison.OrdinalIgnoreCase))
            {
                digests[bare[DigestPrefix.Length..].ToLowerInvariant()] = Convert.FromBase64String(value);
            }
        }

        if (etag is null)
        {
            etag = head.ETag;
            contentType = head.Headers.ContentType;
        }

        var modified = kept ?? (head.LastModified is { } time ? new DateTimeOffset(DateTime.SpecifyKind(time.ToUniversalTime(), DateTimeKind.Utc)) : DateTimeOffset.UnixEpoch);
        return new ObjectInfo(key, head.ContentLength, modified, etag, contentType, digests);
    }
}
