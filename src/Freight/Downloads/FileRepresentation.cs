using Microsoft.Extensions.Primitives;
using Microsoft.Net.Http.Headers;

namespace Freight.Downloads;

/// <summary>
/// What a GET of one file sends besides the bytes: length, validators and type, with the header values
/// formatted once (a small file is served thousands of times a second; formatting its ETag and
/// HTTP-date per request was measurable). <see cref="Content"/> holds the whole file for cached small
/// files; null means the bytes are read from disk per request.
/// </summary>
public sealed class FileRepresentation
{
    /// <summary>A file's representation: its length, modification time, entity tag, content type and, when small, its bytes.</summary>
    public FileRepresentation(long length, DateTimeOffset lastModified, EntityTagHeaderValue entityTag, string contentType, ReadOnlyMemory<byte>? content = null)
    {
        ArgumentNullException.ThrowIfNull(entityTag);
        ArgumentException.ThrowIfNullOrEmpty(contentType);
        if (content is { } bytes && bytes.Length != length)
        {
            throw new ArgumentException("The cached content must be the whole file.", nameof(content));
        }

        Length = length;
        // HTTP dates have whole seconds (RFC 9110 §5.6.7); comparisons with If-Modified-Since use this value.
        LastModified = new DateTimeOffset(lastModified.UtcTicks - (lastModified.UtcTicks % TimeSpan.TicksPerSecond), TimeSpan.Zero);
        EntityTag = entityTag;
        ContentType = contentType;
        Content = content;
        ETagHeader = entityTag.ToString();
        LastModifiedHeader = HeaderUtilities.FormatDate(LastModified);
        ContentTypeHeader = contentType;
    }

    /// <summary>The length in bytes.</summary>
    public long Length { get; }

    /// <summary>The modification time truncated to whole seconds.</summary>
    public DateTimeOffset LastModified { get; }

    /// <summary>The entity tag (ETag).</summary>
    public EntityTagHeaderValue EntityTag { get; }

    /// <summary>The media type sent as Content-Type.</summary>
    public string ContentType { get; }

    /// <summary>The whole file, when it is small enough to be cached; otherwise null.</summary>
    public ReadOnlyMemory<byte>? Content { get; }

    /// <summary>The ETag header value, formatted once.</summary>
    public StringValues ETagHeader { get; }

    /// <summary>The Last-Modified header value, formatted once.</summary>
    public StringValues LastModifiedHeader { get; }

    /// <summary>The Content-Type header value.</summary>
    public StringValues ContentTypeHeader { get; }

    /// <summary>
    /// A strong validator from the file's metadata, as nginx makes one: modification time (100 ns ticks)
    /// and length. Any write through a file system API moves the time; a store that knows a content hash
    /// passes its own tag instead.
    /// </summary>
    public static EntityTagHeaderValue EntityTagFromMetadata(DateTimeOffset lastModified, long length) =>
        new($"\"{lastModified.UtcTicks:x}-{length:x}\"");
}
