using System.Collections.Concurrent;
using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using Freight.Downloads;
using Freight.Lab.Payload;
using Freight.Storage;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Extensions.Logging;
using Microsoft.Win32.SafeHandles;

namespace Freight.Tests.Downloads;

/// <summary>
/// <see cref="FileResponder.SendAsync(HttpContext, FileRepresentation, IObjectReader)"/> on real Kestrel
/// (127.0.0.1:0) and a real HttpClient, with a store reader that has neither a file handle nor the content,
/// as an S3 reader has: every byte comes through <see cref="IObjectReader.OpenRangeAsync"/>, and the ranges
/// it opened are recorded, so each test checks both what the client got and what the store was asked.
/// </summary>
public sealed class FileResponderReaderTests : IAsyncLifetime
{
    // Past FileResponder.WholeWriteMaxBytes (sent in flushes), odd so no chunk size divides it.
    private const int LargeLength = (3 * 1024 * 1024) + 17;

    // Under it: read whole into the writer and sent in one flush.
    private const int SmallLength = 10_000;

    private readonly byte[] _large = DeterministicPayload.Create(LargeLength);
    private readonly byte[] _small = DeterministicPayload.Create(SmallLength, seed: 5);
    private readonly MemoryObjectStore _store = new();
    private readonly ConcurrentQueue<(long Offset, long Length)> _opened = new();
    private WebApplication? _app;
    private HttpClient? _client;

    private HttpClient Client => _client ?? throw new InvalidOperationException("Not initialized.");

    public async Task InitializeAsync()
    {
        await PutAsync("large.bin", _large);
        await PutAsync("small.bin", _small);

        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        _app = builder.Build();

        // ?short=N: the store's range streams end N bytes early, as a dropped connection to S3 would.
        _app.MapMethods("/objects/{name}", [HttpMethods.Get, HttpMethods.Head], async context =>
        {
            var name = (string)context.Request.RouteValues["name"]!;
            await using var stored = await _store.OpenReadAsync(name, context.RequestAborted);
            if (stored is null)
            {
                context.Response.StatusCode = StatusCodes.Status404NotFound;
                return;
            }

            var shortBy = int.Parse(context.Request.Query["short"].FirstOrDefault() ?? "0", CultureInfo.InvariantCulture);
            var reader = new RangeOnlyReader(stored, _opened, shortBy);
            await FileResponder.SendAsync(context, Describe(reader.Info), reader);
        });
        await _app.StartAsync();
        _client = new HttpClient { BaseAddress = new Uri(_app.Urls.First()) };
    }

    public async Task DisposeAsync()
    {
        _client?.Dispose();
        if (_app is not null)
        {
            await _app.DisposeAsync();
        }
    }

    private async Task PutAsync(string key, byte[] content)
    {
        await using var writer = await _store.BeginWriteAsync(key);
        await writer.WriteAsync(content.AsMemory());
        await writer.CommitAsync();
    }

    private static FileRepresentation Describe(ObjectInfo info) =>
        new(info.Length, info.LastModified, Microsoft.Net.Http.Headers.EntityTagHeaderValue.Parse(info.ETag), "application/octet-stream");

    private async Task<string> ETagAsync(string key) => (await _store.GetInfoAsync(key))!.ETag;

    private Task<HttpResponseMessage> SendAsync(HttpMethod method, string name, params (string Name, string Value)[] headers)
    {
        var request = new HttpRequestMessage(method, "/objects/" + name);
        foreach (var (header, value) in headers)
        {
            request.Headers.TryAddWithoutValidation(header, value);
        }

        return Client.SendAsync(request);
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);

    // 200

    [Fact]
    public async Task Get_WholeObject_200WithEveryByteFromOneRange()
    {
        using var response = await SendAsync(HttpMethod.Get, "large.bin");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(LargeLength, response.Content.Headers.ContentLength);
        Assert.Equal("application/octet-stream", response.Content.Headers.ContentType?.ToString());
        Assert.Equal("bytes", string.Join(",", response.Headers.AcceptRanges));
        Assert.Equal(await ETagAsync("large.bin"), response.Headers.ETag?.ToString());
        Assert.Equal(_large, await response.Content.ReadAsByteArrayAsync());
        Assert.Equal([(0L, (long)LargeLength)], _opened);
    }

    [Fact]
    public async Task Get_SmallObject_200WithEveryByteFromOneRange()
    {
        using var response = await SendAsync(HttpMethod.Get, "small.bin");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(SmallLength, response.Content.Headers.ContentLength);
        Assert.Equal(_small, await response.Content.ReadAsByteArrayAsync());
        Assert.Equal([(0L, (long)SmallLength)], _opened);
    }

    [Fact]
    public async Task Head_WholeObject_LengthAndValidatorsWithoutOpeningARange()
    {
        using var response = await SendAsync(HttpMethod.Head, "large.bin");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(LargeLength, response.Content.Headers.ContentLength);
        Assert.Equal(await ETagAsync("large.bin"), response.Headers.ETag?.ToString());
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
        Assert.Empty(_opened);
    }

    // 206, one range

    [Theory]
    [InlineData(100, 1099)]
    [InlineData(1_000_000, 2_999_999)]
    [InlineData(0, 0)]
    [InlineData(LargeLength - 1, LargeLength - 1)]
    public async Task Get_OneRange_206WithThoseBytesFromOneRange(long first, long last)
    {
        using var response = await SendAsync(HttpMethod.Get, "large.bin", ("Range", Invariant($"bytes={first}-{last}")));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal(Invariant($"bytes {first}-{last}/{LargeLength}"), response.Content.Headers.ContentRange?.ToString());
        Assert.Equal(last - first + 1, response.Content.Headers.ContentLength);
        Assert.Equal(_large[(int)first..(int)(last + 1)], await response.Content.ReadAsByteArrayAsync());
        Assert.Equal([(first, last - first + 1)], _opened);
    }

    [Fact]
    public async Task Get_SuffixRange_206WithTheLastBytes()
    {
        using var response = await SendAsync(HttpMethod.Get, "large.bin", ("Range", "bytes=-500"));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal(Invariant($"bytes {LargeLength - 500}-{LargeLength - 1}/{LargeLength}"), response.Content.Headers.ContentRange?.ToString());
        Assert.Equal(_large[^500..], await response.Content.ReadAsByteArrayAsync());
        Assert.Equal([((long)LargeLength - 500, 500L)], _opened);
    }

    [Fact]
    public async Task Get_RangePastTheEnd_206UpToTheLastByte()
    {
        using var response = await SendAsync(HttpMethod.Get, "small.bin", ("Range", "bytes=9000-"));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal(Invariant($"bytes 9000-{SmallLength - 1}/{SmallLength}"), response.Content.Headers.ContentRange?.ToString());
        Assert.Equal(_small[9000..], await response.Content.ReadAsByteArrayAsync());
        Assert.Equal([(9000L, (long)SmallLength - 9000)], _opened);
    }

    // 206, several ranges

    public static TheoryData<string, long[]> SeveralRanges => new()
    {
        // Small parts: one send at the end.
        { "bytes=0-99,1000-1999,-100", [0, 99, 1000, 1999, LargeLength - 100, LargeLength - 1] },
        // Large parts: flushed as each part's bytes are read.
        { "bytes=0-199999,1000000-1599999,3000000-", [0, 199_999, 1_000_000, 1_599_999, 3_000_000, LargeLength - 1] },
    };

    [Theory]
    [MemberData(nameof(SeveralRanges))]
    public async Task Get_SeveralRanges_MultipartWithEachPartExactAndOneRangeOpenedPerPart(string header, long[] bounds)
    {
        using var response = await SendAsync(HttpMethod.Get, "large.bin", ("Range", header));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Null(response.Content.Headers.ContentRange);
        var contentType = response.Content.Headers.ContentType;
        Assert.Equal("multipart/byteranges", contentType?.MediaType);
        var boundary = contentType!.Parameters.Single(p => p.Name == "boundary").Value!;
        var body = await response.Content.ReadAsByteArrayAsync();
        Assert.Equal(body.Length, response.Content.Headers.ContentLength);

        var parts = new MultipartReader(boundary, new MemoryStream(body));
        var expectedOpened = new List<(long Offset, long Length)>();
        for (var i = 0; i < bounds.Length; i += 2)
        {
            var (first, last) = (bounds[i], bounds[i + 1]);
            var section = await parts.ReadNextSectionAsync();
            Assert.NotNull(section);
            Assert.Equal("application/octet-stream", section.ContentType);
            Assert.Equal(Invariant($"bytes {first}-{last}/{LargeLength}"), section.Headers!["Content-Range"].ToString());
            using var bytes = new MemoryStream();
            await section.Body.CopyToAsync(bytes);
            Assert.Equal(_large[(int)first..(int)(last + 1)], bytes.ToArray());
            expectedOpened.Add((first, last - first + 1));
        }

        Assert.Null(await parts.ReadNextSectionAsync());
        Assert.Equal(expectedOpened, _opened);
    }

    // 416, 304, 412, If-Range

    [Fact]
    public async Task Get_UnsatisfiableRange_416WithoutOpeningARange()
    {
        using var response = await SendAsync(HttpMethod.Get, "large.bin", ("Range", Invariant($"bytes={LargeLength}-")));

        Assert.Equal(HttpStatusCode.RequestedRangeNotSatisfiable, response.StatusCode);
        Assert.Equal(Invariant($"bytes */{LargeLength}"), response.Content.Headers.ContentRange?.ToString());
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
        Assert.Empty(_opened);
    }

    [Fact]
    public async Task Get_IfNoneMatchCurrentTag_304WithoutOpeningARange()
    {
        var etag = await ETagAsync("large.bin");

        using var response = await SendAsync(HttpMethod.Get, "large.bin", ("If-None-Match", etag));

        Assert.Equal(HttpStatusCode.NotModified, response.StatusCode);
        Assert.Equal(etag, response.Headers.ETag?.ToString());
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
        Assert.Empty(_opened);
    }

    [Fact]
    public async Task Get_IfMatchOtherTag_412WithoutOpeningARange()
    {
        using var response = await SendAsync(HttpMethod.Get, "large.bin", ("If-Match", "\"other\""), ("Range", "bytes=0-9"));

        Assert.Equal(HttpStatusCode.PreconditionFailed, response.StatusCode);
        Assert.Empty(_opened);
    }

    [Fact]
    public async Task Get_IfRangeOtherTag_200WithTheWholeObject()
    {
        using var response = await SendAsync(HttpMethod.Get, "large.bin", ("Range", "bytes=0-9"), ("If-Range", "\"other\""));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Null(response.Content.Headers.ContentRange);
        Assert.Equal(_large, await response.Content.ReadAsByteArrayAsync());
        Assert.Equal([(0L, (long)LargeLength)], _opened);
    }

    [Fact]
    public async Task Get_IfRangeCurrentTag_206WithTheRange()
    {
        using var response = await SendAsync(HttpMethod.Get, "large.bin", ("Range", "bytes=0-9"), ("If-Range", await ETagAsync("large.bin")));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal(_large[..10], await response.Content.ReadAsByteArrayAsync());
        Assert.Equal([(0L, 10L)], _opened);
    }

    // A store stream that ends early

    [Fact]
    public async Task Get_LargeObjectStreamEndsEarly_ResponseAbortedNotCutShort()
    {
        // The headers and the first chunks have left before the stream ends: only aborting the connection
        // tells the client that the body is not the whole object.
        var read = new MemoryStream();
        var failure = await Record.ExceptionAsync(async () =>
        {
            using var response = await Client.GetAsync("/objects/large.bin?short=1000", HttpCompletionOption.ResponseHeadersRead);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(LargeLength, response.Content.Headers.ContentLength);
            await using var body = await response.Content.ReadAsStreamAsync();
            await body.CopyToAsync(read);
        });

        Assert.IsAssignableFrom<IOException>(failure);
        Assert.True(read.Length < LargeLength, $"The client read {read.Length} of {LargeLength} bytes.");
        Assert.Equal(_large[..(int)read.Length], read.ToArray());
    }

    [Fact]
    public async Task Get_SmallObjectStreamEndsEarly_500WithoutTheBody()
    {
        // Nothing has left yet when the stream ends (a small body goes out in one send): the whole answer becomes a 500.
        using var response = await Client.GetAsync("/objects/small.bin?short=10");

        Assert.Equal(HttpStatusCode.InternalServerError, response.StatusCode);
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [InlineData("small.bin")]
    [InlineData("large.bin")]
    public async Task SendAsync_StreamEndsEarly_ThrowsEndOfStream(string name)
    {
        // Not left to Kestrel's own Content-Length check: the responder itself refuses to end a short body.
        await using var stored = await _store.OpenReadAsync(name);
        var reader = new RangeOnlyReader(stored!, _opened, shortBy: 1);
        var context = new DefaultHttpContext();
        context.Request.Method = HttpMethods.Get;
        context.Response.Body = new MemoryStream();

        await Assert.ThrowsAsync<EndOfStreamException>(() => FileResponder.SendAsync(context, Describe(reader.Info), reader));
    }

    [Fact]
    public async Task SendAsync_ReaderOfAnotherLength_ArgumentException()
    {
        await using var stored = await _store.OpenReadAsync("small.bin");
        var reader = new RangeOnlyReader(stored!, _opened, shortBy: 0);
        var info = reader.Info;
        var representation = Describe(info with { Length = info.Length + 1 });

        await Assert.ThrowsAsync<ArgumentException>(() => FileResponder.SendAsync(new DefaultHttpContext(), representation, reader));
        Assert.Empty(_opened);
    }

    /// <summary>
    /// A real store reader seen as an S3 one is: no file handle, no content, so every byte comes through
    /// <see cref="OpenRangeAsync"/>, whose calls it records. Its streams end <paramref name="shortBy"/> bytes
    /// early when asked to, without an error, as a response stream whose connection dropped would.
    /// </summary>
    private sealed class RangeOnlyReader(IObjectReader inner, ConcurrentQueue<(long Offset, long Length)> opened, int shortBy) : IObjectReader
    {
        public ObjectInfo Info => inner.Info;

        public SafeFileHandle? FileHandle => null;

        public ReadOnlyMemory<byte>? Content => null;

        public ValueTask<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default) =>
            throw new InvalidOperationException("The download path reads through OpenRangeAsync only.");

        public ValueTask<Stream> OpenRangeAsync(long offset, long length, CancellationToken cancellationToken = default)
        {
            opened.Enqueue((offset, length));
            return inner.OpenRangeAsync(offset, Math.Max(0, length - shortBy), cancellationToken);
        }

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}
