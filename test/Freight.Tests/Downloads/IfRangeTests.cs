using Freight.Downloads;
using Freight.Lab.Payload;
using Microsoft.AspNetCore.Http;
using Microsoft.Net.Http.Headers;

namespace Freight.Tests.Downloads;

/// <summary>
/// If-Range (RFC 9110 §13.1.5): <see cref="Preconditions.IfRangeHolds"/> against the tag <c>"v1"</c> last
/// modified at <see cref="LastModified"/>, then <see cref="FileResponder"/> on a real file with real
/// <see cref="DefaultHttpContext"/>s: a matching validator gets the range (206), any other the whole file (200).
/// </summary>
public sealed class IfRangeTests : IDisposable
{
    private const int FileLength = 4096;

    private static readonly EntityTagHeaderValue Tag = new("\"v1\"");
    private static readonly DateTimeOffset LastModified = new(2026, 3, 4, 5, 6, 7, TimeSpan.Zero);

    private readonly TempDirectory _dir = new();
    private readonly string _path;
    private readonly byte[] _content = DeterministicPayload.Create(FileLength);

    public IfRangeTests()
    {
        _path = _dir.Combine("file.bin");
        File.WriteAllBytes(_path, _content);
        File.SetLastWriteTimeUtc(_path, LastModified.UtcDateTime.AddMilliseconds(250));
    }

    public void Dispose() => _dir.Dispose();

    private static HttpRequest Request(params (string Name, string Value)[] headers)
    {
        var context = new DefaultHttpContext();
        context.Request.Method = HttpMethods.Get;
        foreach (var (name, value) in headers)
        {
            context.Request.Headers.Append(name, value);
        }

        return context.Request;
    }

    private static bool Holds(params (string Name, string Value)[] headers) =>
        Preconditions.IfRangeHolds(Request(headers), Tag, LastModified);

    // Preconditions.IfRangeHolds

    [Fact]
    public void IfRangeHolds_NoIfRange_True()
    {
        Assert.True(Holds(("Range", "bytes=0-1")));
    }

    [Fact]
    public void IfRangeHolds_CurrentStrongTag_True()
    {
        Assert.True(Holds(("If-Range", "\"v1\"")));
    }

    [Fact]
    public void IfRangeHolds_CurrentTagWithSurroundingSpaces_True()
    {
        Assert.True(Holds(("If-Range", " \"v1\" ")));
    }

    [Fact]
    public void IfRangeHolds_WeakTagEqualToCurrent_False()
    {
        // §13.1.5: the strong comparison (§8.8.3.2); a weak tag never matches.
        Assert.False(Holds(("If-Range", "W/\"v1\"")));
    }

    [Fact]
    public void IfRangeHolds_StrongTagAgainstWeakCurrentTag_False()
    {
        var request = Request(("If-Range", "\"v1\""));

        Assert.False(Preconditions.IfRangeHolds(request, new EntityTagHeaderValue("\"v1\"", isWeak: true), LastModified));
    }

    [Theory]
    [InlineData("\"v0\"")]
    [InlineData("\"V1\"")]
    [InlineData("\"v1\", \"v2\"")]
    [InlineData("*")]
    [InlineData("v1")]
    [InlineData("\"v1")]
    [InlineData("not a validator")]
    public void IfRangeHolds_OtherTagOrInvalidValue_False(string value)
    {
        Assert.False(Holds(("If-Range", value)));
    }

    [Fact]
    public void IfRangeHolds_TwoFieldLines_False()
    {
        // If-Range holds one validator, not a list.
        Assert.False(Holds(("If-Range", "\"v1\""), ("If-Range", "\"v1\"")));
    }

    [Fact]
    public void IfRangeHolds_TagWithoutCurrentTag_False()
    {
        Assert.False(Preconditions.IfRangeHolds(Request(("If-Range", "\"v1\"")), entityTag: null, LastModified));
    }

    [Fact]
    public void IfRangeHolds_DateEqualToLastModified_True()
    {
        Assert.True(Holds(("If-Range", HeaderUtilities.FormatDate(LastModified))));
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(1)]
    [InlineData(-3600)]
    public void IfRangeHolds_DateOtherThanLastModified_False(int seconds)
    {
        // §13.1.5: an exact match only; an earlier or later date is no validator of these bytes.
        Assert.False(Holds(("If-Range", HeaderUtilities.FormatDate(LastModified.AddSeconds(seconds)))));
    }

    [Fact]
    public void IfRangeHolds_DateWithoutLastModified_False()
    {
        var request = Request(("If-Range", HeaderUtilities.FormatDate(LastModified)));

        Assert.False(Preconditions.IfRangeHolds(request, Tag, lastModified: null));
    }

    // FileResponder with If-Range and Range

    private sealed record Answer(int Status, byte[] Body, IHeaderDictionary Headers);

    private async Task<Answer> SendAsync(params (string Name, string Value)[] headers)
    {
        var context = new DefaultHttpContext();
        context.Request.Method = HttpMethods.Get;
        foreach (var (name, value) in headers)
        {
            context.Request.Headers.Append(name, value);
        }

        using var body = new MemoryStream();
        context.Response.Body = body;
        Assert.True(await FileResponder.TrySendAsync(context, new FileCache(), _path));
        await context.Response.BodyWriter.FlushAsync();
        return new Answer(context.Response.StatusCode, body.ToArray(), context.Response.Headers);
    }

    /// <summary>The ETag and Last-Modified the responder sends for the file.</summary>
    private async Task<(string ETag, string LastModified)> ValidatorsAsync()
    {
        var plain = await SendAsync();
        return (plain.Headers.ETag.ToString(), plain.Headers.LastModified.ToString());
    }

    private void AssertRange(Answer answer, int first, int last)
    {
        Assert.Equal(StatusCodes.Status206PartialContent, answer.Status);
        Assert.Equal($"bytes {first}-{last}/{FileLength}", answer.Headers.ContentRange.ToString());
        Assert.Equal(_content[first..(last + 1)], answer.Body);
    }

    private void AssertWhole(Answer answer)
    {
        Assert.Equal(StatusCodes.Status200OK, answer.Status);
        Assert.Equal(0, answer.Headers.ContentRange.Count);
        Assert.Equal(FileLength, answer.Headers.ContentLength);
        Assert.Equal("bytes", answer.Headers.AcceptRanges.ToString());
        Assert.Equal(_content, answer.Body);
    }

    [Fact]
    public async Task TrySend_IfRangeCurrentETag_206WithTheRange()
    {
        var (etag, _) = await ValidatorsAsync();

        AssertRange(await SendAsync(("Range", "bytes=10-19"), ("If-Range", etag)), 10, 19);
    }

    [Fact]
    public async Task TrySend_IfRangeWeakCurrentETag_200WithTheWholeFile()
    {
        var (etag, _) = await ValidatorsAsync();

        AssertWhole(await SendAsync(("Range", "bytes=10-19"), ("If-Range", "W/" + etag)));
    }

    [Fact]
    public async Task TrySend_IfRangeOtherETag_200WithTheWholeFile()
    {
        AssertWhole(await SendAsync(("Range", "bytes=10-19"), ("If-Range", "\"an-older-version\"")));
    }

    [Fact]
    public async Task TrySend_IfRangeLastModified_206WithTheRange()
    {
        var (_, lastModified) = await ValidatorsAsync();
        Assert.Equal(HeaderUtilities.FormatDate(LastModified), lastModified);

        AssertRange(await SendAsync(("Range", "bytes=-16"), ("If-Range", lastModified)), FileLength - 16, FileLength - 1);
    }

    [Fact]
    public async Task TrySend_IfRangeOtherDate_200WithTheWholeFile()
    {
        AssertWhole(await SendAsync(("Range", "bytes=10-19"), ("If-Range", HeaderUtilities.FormatDate(LastModified.AddSeconds(-1)))));
    }

    [Fact]
    public async Task TrySend_IfRangeWithoutRange_200WithTheWholeFile()
    {
        // §13.1.5: without Range, If-Range is ignored, matching or not.
        var (etag, _) = await ValidatorsAsync();

        AssertWhole(await SendAsync(("If-Range", etag)));
        AssertWhole(await SendAsync(("If-Range", "\"an-older-version\"")));
    }

    [Fact]
    public async Task TrySend_IfRangeOtherETagWithUnsatisfiableRange_200WithTheWholeFile()
    {
        // §13.2.2 step 5: a failed If-Range means the Range is ignored, so it cannot be unsatisfiable.
        AssertWhole(await SendAsync(("Range", "bytes=5000-"), ("If-Range", "\"an-older-version\"")));
    }

    [Fact]
    public async Task TrySend_IfRangeCurrentETagWithUnsatisfiableRange_416()
    {
        var (etag, _) = await ValidatorsAsync();

        var answer = await SendAsync(("Range", "bytes=5000-"), ("If-Range", etag));

        Assert.Equal(StatusCodes.Status416RangeNotSatisfiable, answer.Status);
        Assert.Equal($"bytes */{FileLength}", answer.Headers.ContentRange.ToString());
        Assert.Empty(answer.Body);
    }

    [Fact]
    public async Task TrySend_IfNoneMatchCurrentETagWithRangeAndIfRange_304()
    {
        // §13.2.2: If-None-Match (step 3) decides before If-Range (step 5).
        var (etag, _) = await ValidatorsAsync();

        var answer = await SendAsync(("Range", "bytes=10-19"), ("If-Range", etag), ("If-None-Match", etag));

        Assert.Equal(StatusCodes.Status304NotModified, answer.Status);
        Assert.Empty(answer.Body);
        Assert.Equal(0, answer.Headers.ContentRange.Count);
    }
}
