using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using System.Text;
using Freight.Bench.Load;

namespace Freight.Bench.Suites.Tus;

/// <summary>
/// The bench's tus 1.0 client (https://tus.io/protocols/resumable-upload): one upload is a creation
/// <c>POST</c> (Creation extension: <c>Upload-Length</c>, <c>Upload-Metadata: filename …</c>) and then
/// <c>PATCH</c>es of <c>chunkBytes</c> each, one after another on the same connection, each checked for its
/// <c>204</c> and the <c>Upload-Offset</c> it reports. Each chunk streams straight from the payload array
/// through the same content the files suite's PUT uses (a <see cref="StreamContent"/> over a read-only
/// <see cref="MemoryStream"/> window, 1 MiB copy buffer): no chunk is copied whole before it is sent, and
/// the client costs the same per byte as <c>files/put</c>'s. Any other answer fails the upload with the
/// request, the status and the body the server sent.
/// </summary>
public sealed class TusUploadClient(HttpClient client)
{
    /// <summary>The protocol version sent in <c>Tus-Resumable</c> and expected back (tus 1.0 §Tus-Resumable).</summary>
    public const string ProtocolVersion = "1.0.0";

    /// <summary>The media type every PATCH body must carry (tus 1.0 §PATCH).</summary>
    public const string OffsetOctetStream = "application/offset+octet-stream";

    /// <summary>The request body's copy buffer: 1 MiB, as the files suite's PUT, so both rows pay the same client cost.</summary>
    public const int ClientBufferBytes = 1024 * 1024;

    /// <summary>
    /// Uploads <paramref name="payload"/> as <paramref name="fileName"/> to the creation endpoint
    /// <paramref name="endpoint"/> in PATCHes of at most <paramref name="chunkBytes"/>; returns the upload's URL
    /// (the creation's <c>Location</c>, resolved against <paramref name="endpoint"/>) once the server has
    /// acknowledged every byte.
    /// </summary>
    /// <exception cref="VerificationException">The server answered anything the protocol does not allow.</exception>
    public async Task<TusUpload> UploadAsync(Uri endpoint, string fileName, byte[] payload, int chunkBytes, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(payload);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(chunkBytes);
        var upload = await CreateAsync(endpoint, fileName, payload.LongLength, cancellationToken);
        var offset = 0;
        var patches = 0;
        while (offset < payload.Length)
        {
            var count = Math.Min(chunkBytes, payload.Length - offset);
            offset = checked((int)await PatchAsync(upload, payload, offset, count, cancellationToken));
            patches++;
        }

        return new TusUpload(upload, offset, patches);
    }

    /// <summary>
    /// Creation (tus 1.0 §Creation): <c>POST</c> with <c>Upload-Length</c> and the file name in
    /// <c>Upload-Metadata</c> (key, space, Base64 of its UTF-8 bytes); expects <c>201 Created</c> with a
    /// <c>Location</c>, returned absolute.
    /// </summary>
    public async Task<Uri> CreateAsync(Uri endpoint, string fileName, long length, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(endpoint);
        ArgumentException.ThrowIfNullOrEmpty(fileName);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        using var request = new HttpRequestMessage(HttpMethod.Post, endpoint) { Content = new ByteArrayContent([]) };
        request.Headers.Add("Tus-Resumable", ProtocolVersion);
        request.Headers.Add("Upload-Length", length.ToString(CultureInfo.InvariantCulture));
        request.Headers.Add("Upload-Metadata", "filename " + Convert.ToBase64String(Encoding.UTF8.GetBytes(fileName)));
        using var response = await client.SendAsync(request, cancellationToken);
        await ExpectAsync(response, HttpStatusCode.Created, cancellationToken);
        var location = response.Headers.Location
            ?? throw new VerificationException($"POST {endpoint}: 201 without a Location header.");
        return location.IsAbsoluteUri ? location : new Uri(endpoint, location);
    }

    /// <summary>
    /// One PATCH (tus 1.0 §PATCH) of <paramref name="count"/> payload bytes from <paramref name="offset"/>;
    /// expects <c>204 No Content</c> with <c>Upload-Offset</c> = offset + count, and returns that offset.
    /// </summary>
    public async Task<long> PatchAsync(Uri upload, byte[] payload, int offset, int count, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(upload);
        ArgumentNullException.ThrowIfNull(payload);
        var content = new StreamContent(new MemoryStream(payload, offset, count, writable: false), ClientBufferBytes);
        content.Headers.ContentType = new MediaTypeHeaderValue(OffsetOctetStream);
        using var request = new HttpRequestMessage(HttpMethod.Patch, upload) { Content = content };
        request.Headers.Add("Tus-Resumable", ProtocolVersion);
        request.Headers.Add("Upload-Offset", offset.ToString(CultureInfo.InvariantCulture));
        using var response = await client.SendAsync(request, cancellationToken);
        await ExpectAsync(response, HttpStatusCode.NoContent, cancellationToken);
        var expected = (long)offset + count;
        var reported = response.Headers.TryGetValues("Upload-Offset", out var values) ? values.FirstOrDefault() : null;
        if (!long.TryParse(reported, NumberStyles.None, CultureInfo.InvariantCulture, out var answered) || answered != expected)
        {
            throw new VerificationException($"PATCH {upload} at offset {offset} with {count} bytes: Upload-Offset {reported ?? "missing"} in the answer, expected {expected}.");
        }

        return answered;
    }

    /// <summary>The expected status, and <c>Tus-Resumable: 1.0.0</c>, which every answer but OPTIONS's must carry (tus 1.0 §Tus-Resumable).</summary>
    private static async Task ExpectAsync(HttpResponseMessage response, HttpStatusCode status, CancellationToken cancellationToken)
    {
        var request = response.RequestMessage;
        if (response.StatusCode != status)
        {
            var body = await response.Content.ReadAsStringAsync(cancellationToken);
            throw new VerificationException($"{request?.Method} {request?.RequestUri}: {(int)response.StatusCode} {response.ReasonPhrase} where tus expects {(int)status}: {body.Trim()}");
        }

        var version = response.Headers.TryGetValues("Tus-Resumable", out var values) ? values.FirstOrDefault() : null;
        if (version != ProtocolVersion)
        {
            throw new VerificationException($"{request?.Method} {request?.RequestUri}: {(int)response.StatusCode} with Tus-Resumable {version ?? "missing"}, expected {ProtocolVersion}.");
        }
    }
}
