using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Tus;

/// <summary>tus 1.0 requests with HttpClient, and the checks every tus test shares.</summary>
internal static partial class TusApi
{
    public const string Version = "1.0.0";

    public const string OffsetStream = "application/offset+octet-stream";

    // Bounded waits for the server to notice an abort or a clock to pass, not timing assertions.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(20);

    /// <summary>A file name in a folder of its own (<c>tXXXX/name</c>), so tests sharing a server never meet.</summary>
    public static string NewFileName(string name = "upload.bin") => FilesApi.NewRoot() + "/" + name;

    /// <summary>Upload-Metadata: <c>key base64(value)</c> pairs, a bare key for a null value.</summary>
    public static string Metadata(params (string Key, string? Value)[] pairs) =>
        string.Join(',', pairs.Select(p => p.Value is null ? p.Key : p.Key + " " + Convert.ToBase64String(Encoding.UTF8.GetBytes(p.Value))));

    /// <summary>A tus request (with Tus-Resumable: 1.0.0 unless <paramref name="resumable"/> is null).</summary>
    public static HttpRequestMessage Request(TusServer server, HttpMethod method, string path, Protocol protocol = Protocol.Http11, string? resumable = Version)
    {
        var request = server.Request(method, protocol, path);
        if (resumable is not null)
        {
            request.Headers.Add("Tus-Resumable", resumable);
        }

        return request;
    }

    public static void AddHeaders(HttpRequestMessage request, params (string Name, string Value)[] headers)
    {
        foreach (var (name, value) in headers)
        {
            Assert.True(request.Headers.TryAddWithoutValidation(name, value) || (request.Content?.Headers.TryAddWithoutValidation(name, value) ?? false), name);
        }
    }

    /// <summary>A body of <paramref name="bytes"/> with the Content-Type tus asks for (or <paramref name="contentType"/>).</summary>
    public static ByteArrayContent Body(byte[] bytes, string? contentType = OffsetStream)
    {
        var content = new ByteArrayContent(bytes);
        if (contentType is not null)
        {
            content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType);
        }

        return content;
    }

    /// <summary><c>POST /tus/</c> with <paramref name="headers"/> and an optional creation-with-upload body.</summary>
    public static async Task<HttpResponseMessage> PostAsync(TusServer server, (string Name, string Value)[] headers, HttpContent? body = null, Protocol protocol = Protocol.Http11)
    {
        using var request = Request(server, HttpMethod.Post, "/tus/", protocol);
        request.Content = body;
        AddHeaders(request, headers);
        return await server.Client.SendAsync(request);
    }

    /// <summary>Creates an upload of <paramref name="length"/> bytes named <paramref name="fileName"/>; asserts the 201 and returns its path (<c>/tus/{id}</c>).</summary>
    public static async Task<string> CreateAsync(TusServer server, long length, string? fileName = null, Protocol protocol = Protocol.Http11, params (string Name, string Value)[] headers)
    {
        var all = new List<(string, string)> { ("Upload-Length", FilesApi.Invariant(length)) };
        if (fileName is not null)
        {
            all.Add(("Upload-Metadata", Metadata(("filename", fileName))));
        }

        all.AddRange(headers);
        using var response = await PostAsync(server, [.. all], protocol: protocol);
        return await CreatedAsync(response);
    }

    /// <summary>Creates an upload whose length comes later (creation-defer-length); returns its path.</summary>
    public static async Task<string> CreateDeferredAsync(TusServer server, string fileName)
    {
        using var response = await PostAsync(server, [("Upload-Defer-Length", "1"), ("Upload-Metadata", Metadata(("filename", fileName)))]);
        return await CreatedAsync(response);
    }

    /// <summary>Asserts a creation's 201 (Location <c>/tus/{32 hex}</c>, Tus-Resumable) and returns the Location.</summary>
    public static async Task<string> CreatedAsync(HttpResponseMessage response)
    {
        await FilesApi.AssertStatusAsync(response, HttpStatusCode.Created);
        AssertResumable(response);
        var location = response.Headers.Location?.OriginalString;
        Assert.NotNull(location);
        Assert.Matches(UploadPath(), location);
        return location;
    }

    public static string Id(string path) => path["/tus/".Length..];

    /// <summary><c>PATCH</c> of <paramref name="chunk"/> at <paramref name="offset"/>.</summary>
    public static async Task<HttpResponseMessage> PatchAsync(TusServer server, string path, long offset, byte[] chunk, Protocol protocol = Protocol.Http11, params (string Name, string Value)[] headers)
    {
        using var request = Request(server, HttpMethod.Patch, path, protocol);
        request.Content = Body(chunk);
        AddHeaders(request, [("Upload-Offset", FilesApi.Invariant(offset)), .. headers]);
        return await server.Client.SendAsync(request);
    }

    /// <summary>
    /// A chunked HTTP/1.1 <c>PATCH</c> the server refuses part-way (413 past Upload-Length or the limit), over a raw
    /// socket: the server answers and closes while the body is still being sent, which can make HttpClient fail on
    /// its send before it reads the answer. The body goes in the background while the answer is read.
    /// </summary>
    public static Task<RawHttpResponse> PatchChunkedRefusedPartWayAsync(TusServer server, string path, long offset, byte[] body) =>
        FilesApi.RawAsync(
            server.HttpAddress,
            RawHttpConnection.Head("PATCH", server.HttpAddress, path,
                "Tus-Resumable: " + Version, "Content-Type: " + OffsetStream, "Upload-Offset: " + FilesApi.Invariant(offset), "Transfer-Encoding: chunked"),
            [.. RawHttpConnection.Chunked(body, 64 * 1024), .. RawHttpConnection.LastChunk]);

    /// <summary>A tus refusal read off a raw socket: the problem+json with its status, and Tus-Resumable.</summary>
    public static void AssertRefused(RawHttpResponse response, HttpStatusCode status)
    {
        ProblemAssert.IsProblem(response, status);
        Assert.Equal(Version, response.Header("Tus-Resumable"));
    }

    /// <summary>PATCHes <paramref name="content"/>[<paramref name="from"/>..] in chunks, asserting each 204 and offset; returns the last response's headers' Content-Location.</summary>
    public static async Task<string?> PatchAllAsync(TusServer server, string path, byte[] content, int chunkSize, long from = 0, Protocol protocol = Protocol.Http11)
    {
        string? location = null;
        for (var offset = from; offset < content.Length; offset += chunkSize)
        {
            var chunk = content[(int)offset..(int)Math.Min(content.Length, offset + chunkSize)];
            using var response = await PatchAsync(server, path, offset, chunk, protocol);
            await FilesApi.AssertStatusAsync(response, HttpStatusCode.NoContent);
            Assert.Equal(offset + chunk.Length, Offset(response));
            location = Header(response, "Content-Location");
        }

        return location;
    }

    public static async Task<HttpResponseMessage> HeadAsync(TusServer server, string path, Protocol protocol = Protocol.Http11)
    {
        using var request = Request(server, HttpMethod.Head, path, protocol);
        return await server.Client.SendAsync(request);
    }

    /// <summary>HEAD's Upload-Offset, asserting the 200.</summary>
    public static async Task<long> OffsetAsync(TusServer server, string path)
    {
        using var response = await HeadAsync(server, path);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return Offset(response);
    }

    public static async Task<HttpStatusCode> HeadStatusAsync(TusServer server, string path)
    {
        using var response = await HeadAsync(server, path);
        return response.StatusCode;
    }

    public static async Task<HttpResponseMessage> DeleteAsync(TusServer server, string path)
    {
        using var request = Request(server, HttpMethod.Delete, path);
        return await server.Client.SendAsync(request);
    }

    public static long Offset(HttpResponseMessage response) =>
        long.Parse(Header(response, "Upload-Offset") ?? throw new Xunit.Sdk.XunitException("no Upload-Offset"), NumberStyles.None, CultureInfo.InvariantCulture);

    /// <summary>A response header's one value (HttpClient files some as content headers), or null.</summary>
    public static string? Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values)
            ? string.Join(", ", values)
            : null;

    /// <summary>Every tus response, errors included, names the protocol version.</summary>
    public static void AssertResumable(HttpResponseMessage response) => Assert.Equal(Version, Header(response, "Tus-Resumable"));

    /// <summary>A tus refusal: the status, Tus-Resumable, and (except for HEAD, which has no body) a problem+json body.</summary>
    public static async Task AssertRefusedAsync(HttpResponseMessage response, HttpStatusCode status)
    {
        if (response.RequestMessage?.Method == HttpMethod.Head)
        {
            Assert.Equal(status, response.StatusCode);
        }
        else
        {
            await ProblemAssert.IsProblemAsync(response, status);
        }

        AssertResumable(response);
    }

    /// <summary>Upload-Expires as an HTTP-date (RFC 9110 §5.6.7).</summary>
    public static DateTimeOffset Expires(HttpResponseMessage response)
    {
        var value = Header(response, "Upload-Expires") ?? throw new Xunit.Sdk.XunitException("no Upload-Expires");
        Assert.True(DateTimeOffset.TryParseExact(value, "r", CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var expires), value);
        return expires;
    }

    /// <summary>
    /// <paramref name="key"/> is a file of the files API holding exactly <paramref name="content"/>: listed with its
    /// ETag (the quoted XXH3-128 a PUT gives), on disk for the file-system store, served whole, and its SHA-256
    /// (Want-Repr-Digest) that of the source.
    /// </summary>
    public static async Task AssertFileAsync(TusServer server, string key, byte[] content)
    {
        await FilesApi.AssertStoredAsync(server, key, content);
        using var response = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Want-Repr-Digest", "sha-256=1"));
        await FilesApi.AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(FilesApi.ETag(content), response.Headers.ETag?.ToString());
        Assert.Equal(FilesApi.Sha256Field(content), Assert.Single(response.Headers.GetValues("Repr-Digest")));
        Assert.Equal(SHA256.HashData(content), SHA256.HashData(await response.Content.ReadAsByteArrayAsync()));
    }

    /// <summary>
    /// A refused request changed nothing: the upload still holds exactly <paramref name="content"/>'s first
    /// <paramref name="offset"/> bytes (HEAD; on disk for the file-system store) and no file exists at <paramref name="key"/>.
    /// </summary>
    public static async Task AssertHoldsAsync(TusServer server, string path, byte[] content, long offset, string key)
    {
        Assert.Equal(offset, await OffsetAsync(server, path));
        if (server.TusDirectory is not null)
        {
            Assert.Equal(content[..(int)offset], server.StoredBytes(Id(path)));
        }

        await AssertNoFileAsync(server, key);
    }

    /// <summary>No file at <paramref name="key"/>: GET answers 404.</summary>
    public static async Task AssertNoFileAsync(TusServer server, string key)
    {
        using var response = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key);
        if (response.StatusCode != HttpStatusCode.NotFound)
        {
            // Name the file found, not its (binary) bytes.
            Assert.Fail($"GET /files/{key}: expected 404, got {(int)response.StatusCode} with {response.Content.Headers.ContentLength} bytes, ETag {response.Headers.ETag}");
        }

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
    }

    /// <summary>
    /// The offset once no request writes to the upload any more: HEAD, then an empty PATCH at that offset,
    /// which 423s while a (cut-off) PATCH still holds the upload and 409s if it moved on meanwhile.
    /// </summary>
    public static async Task<long> SettledOffsetAsync(TusServer server, string path)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (true)
        {
            var offset = await OffsetAsync(server, path);
            using (var probe = await PatchAsync(server, path, offset, []))
            {
                if (probe.StatusCode == HttpStatusCode.NoContent)
                {
                    Assert.Equal(offset, Offset(probe));
                    return offset;
                }

                Assert.True(probe.StatusCode is HttpStatusCode.Locked or HttpStatusCode.Conflict, $"empty PATCH: {(int)probe.StatusCode} {await probe.Content.ReadAsStringAsync()}");
            }

            if (DateTime.UtcNow > deadline)
            {
                Assert.Fail("the upload stayed busy");
            }

            await Task.Delay(20);
        }
    }

    /// <summary>Polls <paramref name="condition"/> until it holds or patience runs out; returns whether it held.</summary>
    public static async Task<bool> PollUntilAsync(Func<Task<bool>> condition)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (!await condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            await Task.Delay(20);
        }

        return true;
    }

    [GeneratedRegex("^/tus/[0-9a-f]{32}$")]
    public static partial Regex UploadPath();
}

/// <summary>
/// A request body sent in two steps: the first <c>firstPart</c> bytes at once, the rest only after
/// <see cref="Release"/>, so a test can hold a PATCH open while it sends others. Its length is known up front.
/// </summary>
internal sealed class GatedContent : HttpContent
{
    private readonly byte[] _data;
    private readonly int _firstPart;
    private readonly TaskCompletionSource _release = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public GatedContent(byte[] data, int firstPart)
    {
        _data = data;
        _firstPart = firstPart;
        Headers.ContentType = MediaTypeHeaderValue.Parse(TusApi.OffsetStream);
    }

    public void Release() => _release.TrySetResult();

    protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context)
    {
        await stream.WriteAsync(_data.AsMemory(0, _firstPart));
        await stream.FlushAsync();
        await _release.Task;
        await stream.WriteAsync(_data.AsMemory(_firstPart));
    }

    protected override bool TryComputeLength(out long length)
    {
        length = _data.Length;
        return true;
    }
}
