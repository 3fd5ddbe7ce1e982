using System.Net;
using System.Net.Http.Headers;
using Amazon.S3;

namespace Freight.Storage.S3;

/// <summary>
/// Bodies to and from S3 over presigned URLs with the connection's HttpClient: a whole object, one part of a
/// multipart upload, a byte range. Failures become <see cref="S3TransferException"/> (status and S3's message),
/// and a failed condition becomes <see cref="PreconditionFailedException"/>.
/// </summary>
internal static class S3Transfers
{
    // A part is retried from its buffer when the connection fails or S3 answers 5xx: three tries, as the SDK's
    // standard retry mode does.
    private const int Attempts = 3;

    /// <summary>Uploads <paramref name="body"/> as part <paramref name="partNumber"/>; returns the part's ETag.</summary>
    public static async Task<string> UploadPartAsync(S3Connection s3, string objectKey, string uploadId, int partNumber, ReadOnlyMemory<byte> body, CancellationToken cancellationToken)
    {
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                using var request = new HttpRequestMessage(HttpMethod.Put, s3.Presign(HttpVerb.PUT, objectKey, uploadId, partNumber)) { Content = new ReadOnlyMemoryContent(body) };
                using var response = await s3.Http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
                await EnsureSuccessAsync(response, $"part {partNumber} of '{objectKey}'", cancellationToken);
                return response.Headers.ETag?.ToString() ?? throw new S3TransferException(response.StatusCode, $"S3 answered part {partNumber} of '{objectKey}' without an ETag.");
            }
            catch (Exception transient) when (attempt < Attempts && IsTransient(transient) && !cancellationToken.IsCancellationRequested)
            {
            }
        }
    }

    /// <summary>
    /// PUTs a whole object with its metadata, if <paramref name="ifNoneMatch"/> / <paramref name="ifMatch"/> (an
    /// unquoted S3 ETag) hold; returns the new version's S3 ETag.
    /// </summary>
    public static async Task<string> PutObjectAsync(S3Connection s3, string objectKey, ReadOnlyMemory<byte> body, string contentType, IReadOnlyDictionary<string, string> metadata, string? ifNoneMatch, string? ifMatch, CancellationToken cancellationToken)
    {
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                using var request = new HttpRequestMessage(HttpMethod.Put, s3.Presign(HttpVerb.PUT, objectKey, contentType: contentType, metadata: metadata))
                {
                    Content = new ReadOnlyMemoryContent(body),
                };
                request.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType);
                foreach (var (name, value) in metadata)
                {
                    request.Headers.TryAddWithoutValidation("x-amz-meta-" + name, value);
                }

                if (ifNoneMatch is not null)
                {
                    request.Headers.TryAddWithoutValidation("If-None-Match", ifNoneMatch);
                }

                if (ifMatch is not null)
                {
                    request.Headers.TryAddWithoutValidation("If-Match", ifMatch);
                }

                using var response = await s3.Http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
                await EnsureSuccessAsync(response, $"'{objectKey}'", cancellationToken);
                return response.Headers.ETag?.ToString() ?? "";
            }
            catch (Exception transient) when (attempt < Attempts && IsTransient(transient) && !cancellationToken.IsCancellationRequested)
            {
            }
        }
    }

    /// <summary>
    /// GETs <paramref name="length"/> bytes from <paramref name="offset"/> of the version tagged <paramref name="s3ETag"/>
    /// (If-Match: a replaced object fails the read with <see cref="ObjectReplacedException"/> instead of mixing
    /// versions); the caller disposes the response.
    /// </summary>
    public static async Task<HttpResponseMessage> GetAsync(S3Connection s3, string objectKey, string s3ETag, long offset, long? length, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, s3.Presign(HttpVerb.GET, objectKey));
        request.Headers.TryAddWithoutValidation("If-Match", s3ETag);
        if (offset > 0 || length is not null)
        {
            request.Headers.Range = new RangeHeaderValue(offset, length is { } count ? offset + count - 1 : null);
        }

        var response = await s3.Http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        try
        {
            if (response.StatusCode == HttpStatusCode.PreconditionFailed)
            {
                throw new ObjectReplacedException($"'{objectKey}' was replaced while it was being read.");
            }

            await EnsureSuccessAsync(response, $"'{objectKey}'", cancellationToken);
            return response;
        }
        catch
        {
            response.Dispose();
            throw;
        }
    }

    private static async Task EnsureSuccessAsync(HttpResponseMessage response, string what, CancellationToken cancellationToken)
    {
        if (response.IsSuccessStatusCode)
        {
            return;
        }

        if (response.StatusCode == HttpStatusCode.PreconditionFailed)
        {
            throw new PreconditionFailedException();
        }

        var body = await response.Content.ReadAsStringAsync(cancellationToken);
        throw new S3TransferException(response.StatusCode, $"S3 answered {(int)response.StatusCode} for {what}: {body[..Math.Min(body.Length, 500)]}");
    }

    private static bool IsTransient(Exception exception) => exception switch
    {
        S3TransferException refused => refused.StatusCode >= HttpStatusCode.InternalServerError,
        HttpRequestException or IOException => true,
        _ => false,
    };
}

/// <summary>S3 refused or failed a body transfer; <see cref="StatusCode"/> is S3's answer.</summary>
public sealed class S3TransferException(HttpStatusCode statusCode, string message) : IOException(message)
{
    /// <summary>The S3 server's HTTP status.</summary>
    public HttpStatusCode StatusCode { get; } = statusCode;
}
