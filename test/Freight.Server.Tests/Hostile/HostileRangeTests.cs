using System.Globalization;
using System.Net;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Net.Http.Headers;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Range headers built to hurt (RFC 9110 §14): thousands of ranges, overlaps, numbers past 2^63, suffixes past
/// the end, other units, If-Range with weak or stale validators. Each answer is a correct 206, 416 or whole 200
/// (a server may ignore a Range it will not serve, §14.2) carrying exactly the bytes it says — on each store,
/// over HTTP/1.1 and HTTP/2.
/// </summary>
public abstract class HostileRangeTests(FilesServer server)
{
    private const int Size = 1000;

    public static TheoryData<Protocol> Protocols() => [Protocol.Http11, Protocol.Http2];

    /// <summary>10,000 one-byte suffix ranges in 30 KB (under Kestrel's 32 KiB of headers): they coalesce into one range.</summary>
    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_TenThousandOverlappingRanges_CoalesceIntoOne206(Protocol protocol)
    {
        var (key, content) = await CreateAsync();

        using var response = await GetAsync(key, protocol, ("Range", "bytes=" + string.Join(',', Enumerable.Repeat("-1", 10_000))));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal($"bytes {Size - 1}-{Size - 1}/{Size}", response.Content.Headers.ContentRange?.ToString());
        Assert.Equal(content[^1..], await response.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_OverlappingAndAdjacentRanges_AreMergedIntoOne(Protocol protocol)
    {
        var (key, content) = await CreateAsync();

        using var overlapping = await GetAsync(key, protocol, ("Range", "bytes=0-9,5-14,3-20"));
        using var adjacent = await GetAsync(key, protocol, ("Range", "bytes=10-19,0-9"));

        Assert.Equal($"bytes 0-20/{Size}", overlapping.Content.Headers.ContentRange?.ToString());
        Assert.Equal(content[..21], await overlapping.Content.ReadAsByteArrayAsync());
        Assert.Equal($"bytes 0-19/{Size}", adjacent.Content.Headers.ContentRange?.ToString());
        Assert.Equal(content[..20], await adjacent.Content.ReadAsByteArrayAsync());
    }

    /// <summary>100 disjoint ranges (the most served) are 100 exact parts; one more and the Range is ignored: the whole file, 200.</summary>
    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_ManyDisjointRanges_UpTo100Served_MoreIgnored(Protocol protocol)
    {
        var (key, content) = await CreateAsync();
        static string Disjoint(int count) => "bytes=" + string.Join(',', Enumerable.Range(0, count).Select(i => $"{i * 3}-{(i * 3) + 1}"));

        using var served = await GetAsync(key, protocol, ("Range", Disjoint(100)));
        using var ignored = await GetAsync(key, protocol, ("Range", Disjoint(101)));

        Assert.Equal(HttpStatusCode.PartialContent, served.StatusCode);
        var boundary = HeaderUtilities.RemoveQuotes(MediaTypeHeaderValue.Parse(served.Content.Headers.ContentType!.ToString()).Boundary).ToString();
        var reader = new MultipartReader(boundary, await served.Content.ReadAsStreamAsync());
        for (var i = 0; i < 100; i++)
        {
            var section = await reader.ReadNextSectionAsync() ?? throw new Xunit.Sdk.XunitException($"part {i} is missing");
            Assert.Equal($"bytes {i * 3}-{(i * 3) + 1}/{Size}", section.Headers!["Content-Range"].ToString());
            using var part = new MemoryStream();
            await section.Body.CopyToAsync(part);
            Assert.Equal(content.AsSpan(i * 3, 2).ToArray(), part.ToArray());
        }

        Assert.Null(await reader.ReadNextSectionAsync());
        Assert.Equal(HttpStatusCode.OK, ignored.StatusCode);
        Assert.Equal(content, await ignored.Content.ReadAsByteArrayAsync());
    }

    /// <summary>Numbers at and past 2^63 never overflow into a wrong range (RFC 9110 §14.1.1 asks for exactly that care).</summary>
    [Theory]
    [InlineData("bytes=9223372036854775807-", 416, null)]
    [InlineData("bytes=9223372036854775808-", 416, null)]
    [InlineData("bytes=99999999999999999999999999-", 416, null)]
    [InlineData("bytes=0-9223372036854775807", 206, "0-999")]
    [InlineData("bytes=0-99999999999999999999999999", 206, "0-999")]
    [InlineData("bytes=-9223372036854775808", 206, "0-999")]
    [InlineData("bytes=-2000", 206, "0-999")]
    [InlineData("bytes=990-99999999999999999999", 206, "990-999")]
    [InlineData("bytes=-0", 416, null)]
    public async Task Get_HugeOrPastTheEndNumbers_AreExact(string range, int status, string? served)
    {
        var (key, content) = await CreateAsync();

        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            using var response = await GetAsync(key, protocol, ("Range", range));

            Assert.Equal(status, (int)response.StatusCode);
            if (served is null)
            {
                Assert.Equal($"bytes */{Size}", response.Content.Headers.ContentRange?.ToString());
                await ProblemAssert.IsProblemAsync(response, HttpStatusCode.RequestedRangeNotSatisfiable);
                continue;
            }

            var bounds = served.Split('-').Select(bound => int.Parse(bound, CultureInfo.InvariantCulture)).ToArray();
            Assert.Equal($"bytes {served}/{Size}", response.Content.Headers.ContentRange?.ToString());
            Assert.Equal(content[bounds[0]..(bounds[1] + 1)], await response.Content.ReadAsByteArrayAsync());
        }
    }

    /// <summary>Other units and malformed sets are not ranges this server knows: ignored (§14.2), the whole file with 200.</summary>
    [Theory]
    [InlineData("items=0-5")]
    [InlineData("bytes 0-5")]
    [InlineData("bytes=5-1")]
    [InlineData("bytes=")]
    [InlineData("bytes=,,,,")]
    [InlineData("bytes=a-b")]
    [InlineData("bytes=--5")]
    [InlineData("bytes=1-2-3")]
    [InlineData("bytes=0-0;q=1")]
    public async Task Get_MalformedRangeOrOtherUnit_Returns200WithTheWholeFile(string range)
    {
        var (key, content) = await CreateAsync();

        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            using var response = await GetAsync(key, protocol, ("Range", range));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Null(response.Content.Headers.ContentRange);
            Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
        }
    }

    /// <summary>An empty file has no byte to range over: a first-pos range is 416 <c>*/0</c>; a suffix range leaves nothing to cut, so the empty whole.</summary>
    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_RangeOfAnEmptyFile_416OrTheEmptyWhole(Protocol protocol)
    {
        var key = NewRoot() + "/empty.bin";
        await FilesApi.CreateAsync(server, key, []);

        using var from = await GetAsync(key, protocol, ("Range", "bytes=0-"));
        using var suffix = await GetAsync(key, protocol, ("Range", "bytes=-5"));

        Assert.Equal(HttpStatusCode.RequestedRangeNotSatisfiable, from.StatusCode);
        Assert.Equal("bytes */0", from.Content.Headers.ContentRange?.ToString());
        Assert.Equal(HttpStatusCode.OK, suffix.StatusCode);
        Assert.Empty(await suffix.Content.ReadAsByteArrayAsync());
    }

    /// <summary>
    /// If-Range (RFC 9110 §13.1.5) needs a strong match: the current strong ETag or exactly the Last-Modified date
    /// (once its second is over) serve the range; a weak tag of the same value, a stale tag, an older date, a list or garbage give the whole file.
    /// </summary>
    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_IfRangeValidators_OnlyAStrongMatchServesTheRange(Protocol protocol)
    {
        var (key, content) = await CreateAsync();
        using var head = await GetAsync(key, Protocol.Http11);
        var etag = head.Headers.ETag!.ToString();
        var lastModified = head.Content.Headers.LastModified!.Value.ToString("r", CultureInfo.InvariantCulture);

        foreach (var (validator, strong) in new[]
        {
            (etag, true),
            (lastModified, true),
            ("W/" + etag, false),
            ("\"stale\"", false),
            ("Mon, 01 Jan 1990 00:00:00 GMT", false),
            (etag + ", " + etag, false),
            ("garbage", false),
        })
        {
            using var response = await GetAsync(key, protocol, ("Range", "bytes=0-9"), ("If-Range", validator));

            // The file was just written: its date is a strong validator only once its second is over (§8.8.2.2),
            // which the response's Date (never earlier than its Last-Modified) tells.
            var ranged = strong && (validator != lastModified || response.Headers.Date > response.Content.Headers.LastModified);
            Assert.True(ranged == (response.StatusCode == HttpStatusCode.PartialContent), $"If-Range: {validator} answered {(int)response.StatusCode}");
            Assert.Equal(ranged ? content[..10] : content, await response.Content.ReadAsByteArrayAsync());
        }
    }

    private async Task<(string Key, byte[] Content)> CreateAsync()
    {
        var key = NewRoot() + "/ranged.bin";
        var content = Content(Size, seed: 61);
        await FilesApi.CreateAsync(server, key, content);
        return (key, content);
    }

    private async Task<HttpResponseMessage> GetAsync(string key, Protocol protocol, params (string Name, string Value)[] headers)
    {
        using var request = server.Request(HttpMethod.Get, protocol, "/files/" + key);
        foreach (var (name, value) in headers)
        {
            Assert.True(request.Headers.TryAddWithoutValidation(name, value), name);
        }

        var response = await server.Client.SendAsync(request);
        Assert.Equal(request.Version, response.Version);
        return response;
    }
}

public sealed class HostileRangeFileSystemTests(FileSystemFilesServer server) : HostileRangeTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class HostileRangeMemoryTests(MemoryFilesServer server) : HostileRangeTests(server), IClassFixture<MemoryFilesServer>;

public sealed class HostileRangeS3Tests(S3FilesServer server) : HostileRangeTests(server), IClassFixture<S3FilesServer>;
