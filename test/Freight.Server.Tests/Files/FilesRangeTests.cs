using System.Net;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Net.Http.Headers;

namespace Freight.Server.Tests.Files;

/// <summary>
/// Ranges and conditional GETs through the files API itself (RFC 9110 §13–14), on both stores: the same
/// file path the lab's static tests check form by form, here fed by a store's reader (a file handle, or
/// the memory store's bytes).
/// </summary>
public abstract class FilesRangeTests(FilesServer server)
{
    private const int Size = 300_000;

    [Fact]
    public async Task Get_SingleRange_206WithContentRangeAndTheBytes()
    {
        var (key, content, _) = await CreateAsync();

        using var response = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=1000-1999"));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal($"bytes 1000-1999/{Size}", response.Content.Headers.ContentRange?.ToString());
        Assert.Equal(content.AsSpan(1000, 1000).ToArray(), await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_SuffixAndOpenEndedRanges_206WithTheTail()
    {
        var (key, content, _) = await CreateAsync();

        using var suffix = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=-500"));
        using var open = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", $"bytes={Size - 500}-"));

        Assert.Equal(HttpStatusCode.PartialContent, suffix.StatusCode);
        Assert.Equal(content.AsSpan(Size - 500).ToArray(), await suffix.Content.ReadAsByteArrayAsync());
        Assert.Equal(HttpStatusCode.PartialContent, open.StatusCode);
        Assert.Equal(content.AsSpan(Size - 500).ToArray(), await open.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_SeveralRanges_MultipartByterangesWithEachPartExact()
    {
        var (key, content, _) = await CreateAsync();

        using var response = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=0-99,200000-200099"));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal("multipart/byteranges", response.Content.Headers.ContentType?.MediaType);
        var boundary = HeaderUtilities.RemoveQuotes(MediaTypeHeaderValue.Parse(response.Content.Headers.ContentType!.ToString()).Boundary).ToString();
        var reader = new MultipartReader(boundary, await response.Content.ReadAsStreamAsync());
        foreach (var first in new[] { 0, 200_000 })
        {
            var section = await reader.ReadNextSectionAsync();
            Assert.NotNull(section);
            Assert.Equal($"bytes {first}-{first + 99}/{Size}", section.Headers!["Content-Range"].ToString());
            using var part = new MemoryStream();
            await section.Body.CopyToAsync(part);
            Assert.Equal(content.AsSpan(first, 100).ToArray(), part.ToArray());
        }

        Assert.Null(await reader.ReadNextSectionAsync());
    }

    [Fact]
    public async Task Get_RangeBeyondTheEnd_416ProblemWithContentRangeStar()
    {
        var (key, _, _) = await CreateAsync();

        using var response = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", $"bytes={Size}-"));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.RequestedRangeNotSatisfiable);
        Assert.Equal($"bytes */{Size}", response.Content.Headers.ContentRange?.ToString());
    }

    [Fact]
    public async Task Get_IfRangeCurrentETag_206_OtherETag_200Whole()
    {
        var (key, content, etag) = await CreateAsync();

        using var current = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=0-9"), ("If-Range", etag));
        using var stale = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=0-9"), ("If-Range", "\"0123\""));

        Assert.Equal(HttpStatusCode.PartialContent, current.StatusCode);
        Assert.Equal(HttpStatusCode.OK, stale.StatusCode);
        Assert.Equal(content, await stale.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_IfNoneMatchCurrentETag_304WithTheETag()
    {
        var (key, _, etag) = await CreateAsync();

        using var response = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("If-None-Match", etag));

        Assert.Equal(HttpStatusCode.NotModified, response.StatusCode);
        Assert.Equal(etag, response.Headers.ETag?.ToString());
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_IfModifiedSinceLastModified_304_IfMatchOther_412Problem()
    {
        var (key, _, _) = await CreateAsync();
        using var first = await FilesApi.SendAsync(server, HttpMethod.Head, "/files/" + key);
        var lastModified = first.Content.Headers.LastModified!.Value.ToString("r", System.Globalization.CultureInfo.InvariantCulture);

        using var notModified = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("If-Modified-Since", lastModified));
        using var failed = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("If-Match", "\"other\""));

        Assert.Equal(HttpStatusCode.NotModified, notModified.StatusCode);
        Assert.Empty(await notModified.Content.ReadAsByteArrayAsync());
        await ProblemAssert.IsProblemAsync(failed, HttpStatusCode.PreconditionFailed);
        Assert.Equal(first.Headers.ETag?.ToString(), failed.Headers.ETag?.ToString());
        Assert.NotNull(failed.Headers.ETag);
    }

    [Fact]
    public async Task Head_IfMatchOther_412WithoutABody()
    {
        var (key, _, _) = await CreateAsync();

        using var failed = await FilesApi.SendAsync(server, HttpMethod.Head, "/files/" + key, ("If-Match", "\"other\""));

        Assert.Equal(HttpStatusCode.PreconditionFailed, failed.StatusCode);
        Assert.Equal("application/problem+json", failed.Content.Headers.ContentType?.MediaType);
        Assert.Empty(await failed.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Head_Always_AcceptRangesAndLengthWithoutBody()
    {
        var (key, _, etag) = await CreateAsync();

        using var response = await FilesApi.SendAsync(server, HttpMethod.Head, "/files/" + key, ("Range", "bytes=0-9"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(Size, response.Content.Headers.ContentLength);
        Assert.Contains("bytes", response.Headers.AcceptRanges);
        Assert.Equal(etag, response.Headers.ETag?.ToString());
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task GetAndHead_EveryAnswerAboutTheFile_CacheControlNoCache()
    {
        // Without it a browser kept a file with Last-Modified for a tenth of its age and served a replaced file's old
        // bytes without asking; no-cache makes it revalidate (the 304 below) every time. Open access: not private.
        var (key, _, etag) = await CreateAsync();

        using var whole = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key);
        using var head = await FilesApi.SendAsync(server, HttpMethod.Head, "/files/" + key);
        using var range = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=0-9"));
        using var notModified = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("If-None-Match", etag));

        foreach (var (response, status) in new[] { (whole, HttpStatusCode.OK), (head, HttpStatusCode.OK), (range, HttpStatusCode.PartialContent), (notModified, HttpStatusCode.NotModified) })
        {
            Assert.Equal(status, response.StatusCode);
            Assert.Equal("no-cache", response.Headers.CacheControl?.ToString());
        }
    }

    [Fact]
    public async Task GetAndHead_FileJustWritten_LastModifiedNeverAfterDate()
    {
        // RFC 9110 §8.8.2.1. Kestrel's Date lags the clock by up to a second, so about every other file written and read
        // at once used to show a Last-Modified a second after the Date; twenty rounds.
        var root = FilesApi.NewRoot();
        for (var round = 0; round < 20; round++)
        {
            var key = $"{root}/fresh{round}.bin";
            await FilesApi.CreateAsync(server, key, FilesApi.Content(1000, seed: (ulong)round + 1));

            foreach (var method in new[] { HttpMethod.Get, HttpMethod.Head })
            {
                using var response = await FilesApi.SendAsync(server, method, "/files/" + key);

                Assert.Equal(HttpStatusCode.OK, response.StatusCode);
                var lastModified = response.Content.Headers.LastModified;
                var date = response.Headers.Date;
                Assert.True(lastModified is not null && date is not null && lastModified <= date, $"{method} round {round}: Last-Modified {lastModified:r} after Date {date:r}");
            }
        }
    }

    [Fact]
    public async Task Get_DateValidatorsOfTheSecondUnderWay_AreWeak_IfRangeWhole_IfUnmodifiedSince412()
    {
        // §8.8.2.2: a Last-Modified equal to the response's Date names a second not over yet (the file may change again
        // within it and keep that date), so it is no strong validator: If-Range sends the whole file (§13.1.5) and
        // If-Unmodified-Since cannot hold. Once the second is over, the same date is the file's own.
        var root = FilesApi.NewRoot();
        var sameSecond = 0;
        for (var round = 0; round < 20 && sameSecond < 3; round++)
        {
            var key = $"{root}/fresh{round}.bin";
            var content = FilesApi.Content(1000, seed: (ulong)round + 1);
            await FilesApi.CreateAsync(server, key, content);
            using var head = await FilesApi.SendAsync(server, HttpMethod.Head, "/files/" + key);
            var lastModified = head.Content.Headers.LastModified!.Value.ToString("r", System.Globalization.CultureInfo.InvariantCulture);

            using var ranged = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=0-9"), ("If-Range", lastModified));
            using var unmodified = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("If-Unmodified-Since", lastModified));

            if (ranged.Headers.Date == ranged.Content.Headers.LastModified)
            {
                sameSecond++;
                Assert.Equal(HttpStatusCode.OK, ranged.StatusCode);
                Assert.Equal(content, await ranged.Content.ReadAsByteArrayAsync());
            }
            else
            {
                Assert.Equal(HttpStatusCode.PartialContent, ranged.StatusCode);
                Assert.Equal(content.AsSpan(0, 10).ToArray(), await ranged.Content.ReadAsByteArrayAsync());
            }

            // A 412 is a problem whose Date is Kestrel's, so only the 200 says when it was decided: after the second.
            if (unmodified.StatusCode == HttpStatusCode.OK)
            {
                Assert.True(unmodified.Headers.Date > unmodified.Content.Headers.LastModified, $"round {round}: If-Unmodified-Since {lastModified} held within its own second");
                Assert.Equal(content, await unmodified.Content.ReadAsByteArrayAsync());
            }
            else
            {
                await ProblemAssert.IsProblemAsync(unmodified, HttpStatusCode.PreconditionFailed);
            }
        }

        // A round straddles a second's end only when the second ends between its write and its GET.
        Assert.True(sameSecond > 0, "No round read its file within the second it was written.");
    }

    private async Task<(string Key, byte[] Content, string ETag)> CreateAsync()
    {
        var key = FilesApi.NewRoot() + "/ranged.bin";
        var content = FilesApi.Content(Size);
        return (key, content, await FilesApi.CreateAsync(server, key, content));
    }
}

public sealed class FilesRangeFileSystemTests(FileSystemFilesServer server) : FilesRangeTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class FilesRangeCopyingTests(CopyingFilesServer server) : FilesRangeTests(server), IClassFixture<CopyingFilesServer>;

public sealed class FilesRangeMemoryTests(MemoryFilesServer server) : FilesRangeTests(server), IClassFixture<MemoryFilesServer>;

public sealed class FilesRangeS3Tests(S3FilesServer server) : FilesRangeTests(server), IClassFixture<S3FilesServer>;

public sealed class FilesRangeSampleTests(SampleFilesServer server) : FilesRangeTests(server), IClassFixture<SampleFilesServer>;
